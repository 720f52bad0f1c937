r"""One trainer for every homogeneous neuron-block model (docs/architecture.md, docs/training.md).

Objective (Shi Def 4.1 with the regulariser exponent r of Edelman Thm 7.1 / App D.2)

.. math:: \mathcal L_\lambda(\theta_s) = \frac{1}{|B|}\sum_{(x,y)\in B}\mathrm{CE}\big(f(\theta_s,x),y\big)
          + \lambda\,\big(\|\theta_s\|_{2,\nu}^{\nu}\big)^{r/\nu}, \qquad \nu = \mathrm{deg}+1,

with r = ν by default (λ‖θ‖_{2,ν}^ν, the separable form Edelman's experiments use; ``reg_power=1`` gives Shi's
literal λ‖θ‖_{2,ν}). Shi Lemma 4.7 / Edelman Thm 7.1 (Wei et al. 2019): as λ → 0 the normalized margin
h(θ_λ)/‖θ_λ‖_{2,ν}^ν of a global minimiser tends to the maximum γ*.

All seeds of ``config.seeds`` train at once as one :class:`~verify.train.homogeneous.HomogeneousEnsemble`; the loss is
:math:`\sum_s \mathcal L_\lambda(\theta_s)`. Seeds share no parameter and every supported optimiser (Adam,
AdamW, SGD) acts element-wise, so each seed follows exactly the trajectory it would follow alone (the same
full batch, or the same minibatches drawn from ``data_seed``).

Schedules: constant lr, optional linear warm-up (Shi App C.10.1: 10 steps), and lr doublings at given steps
(Edelman App D.2: 0.05 doubled at 1k, 2k, ..., 10k; see :func:`doubling_steps`).

Metrics (loss, accuracy, min margin h, ‖θ‖^ν, h/‖θ‖^ν and its ratio to a reference such as γ*) are evaluated
per seed in float64 on the whole dataset every ``eval_every`` steps, whatever the training dtype.

The step loop (evaluation, lr schedule, checkpoints, NaN guard, early stop, progress bar) is
:func:`verify.runtime.loop.run_loop`; this module supplies the update, the metrics and the checkpoint format.

Speed (:mod:`verify.train.polynomial_step`): the update's data gradient is written out by hand and run under a plan made
before the first step (seeds batched or one at a time, point chunks sized to the cache or the free memory, an
optional ``torch.compile``); the plan refuses runs that would not fit in memory and prints its memory and time
estimate before long runs. :func:`_gradient_step` keeps the autograd form of the same update as the reference.
Run-wide options (device, ``--dtype``, ``--ignore-memory-check``, progress, checkpoint file, seed offset) come
in one :class:`verify.runtime.options.RunOptions`; :func:`estimate_run` gives a run's plan without training.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from numerics.margins import HomogeneousNetwork, Task
from verify.runtime.checkpoint import (
    CHECKPOINT_SECONDS,
    Checkpoint,
    CheckpointMismatchError,
    check_saved_tensors,
    read_checkpoint,
)
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.loop import Bar, Resumption, evaluation_count, run_loop, torch_threads
from verify.runtime.memory import PRINT_ESTIMATE_S, format_seconds
from verify.runtime.options import DEFAULT_OPTIONS, DTYPE_NAMES, RunOptions, RunSetting
from verify.train.homogeneous import HomogeneousEnsemble, as_input_tensor, seed_logit_chunks
from verify.train.polynomial_step import STRATEGIES, EnsembleStep, StepPlan, StepRequest, plan_step, synchronize

__all__ = [
    "CheckpointMismatchError",
    "TrainConfig",
    "TrainResult",
    "doubling_steps",
    "ensemble_metrics",
    "estimate_run",
    "evaluation_rows",
    "evaluations_line",
    "learning_rate",
    "load_checkpoint",
    "probe_evaluation",
    "train",
]

OPTIMIZERS = ("adam", "adamw", "sgd")
#: The seed fields that ``RunOptions.seed_offset`` shifts: the initialisations and the minibatch order.
POLYNOMIAL_SEED_FIELDS = ("seeds", "data_seed")
#: What a checkpoint of this trainer holds besides its weights (``save`` below).
SAVED_KEYS = ("optimizer", "sampler", "history", "wall_time")
# Fields that may change between a checkpoint and the run resuming it (they do not change the trajectory).
RESUMABLE_FIELDS = frozenset({"steps", "checkpoint_every", "nan_check_every", "num_threads", "strategy", "compile"})

EVAL_MEMORY_BUDGET = 64 * 2**20  # bytes of one (points x width) float64 buffer of an evaluation chunk on an accelerator
#: Likewise on the CPU: small chunks (chosen by a sweep on a 1 MiB-L2 AMD EPYC, docs/benchmarks.md,
#: ``benchmarks/bench_eval_chunks.py``); at the widest networks :data:`EVAL_MIN_ROWS` decides instead.
EVAL_CACHE_BUDGET = 512 * 2**10
#: The fewest points of a CPU evaluation chunk (below it the output product runs short rows).
EVAL_MIN_ROWS = 32


def evaluation_rows(width: int, n_classes: int, device: torch.device) -> int:
    """Points per chunk of :func:`ensemble_metrics`, one seed at a time: 8 (m + 3 C) bytes a point (a (points x
    width) float64 buffer and three (points x classes) ones; the chunk keeps up to three of the first alive, the
    preactivations and two powers) within :data:`EVAL_CACHE_BUDGET` on the CPU (at least :data:`EVAL_MIN_ROWS`
    points) and :data:`EVAL_MEMORY_BUDGET` elsewhere.

    >>> evaluation_rows(5632, 23, torch.device("cpu")), evaluation_rows(512, 23, torch.device("cpu"))
    (32, 112)
    >>> evaluation_rows(5632, 23, torch.device("cuda"))
    1471
    """
    per_point = 8 * (width + 3 * n_classes)
    if device.type == "cpu":
        return max(EVAL_MIN_ROWS, EVAL_CACHE_BUDGET // per_point)
    return max(1, EVAL_MEMORY_BUDGET // per_point)


def doubling_steps(every: int = 1000, count: int = 10, start: int | None = None) -> tuple[int, ...]:
    """Steps at which the lr doubles: ``start, start + every, ...`` (``count`` of them; start defaults to every).

    ``doubling_steps()`` is Edelman App D.2's Z_p schedule (0.05 doubled at 1k, 2k, ..., 10k, ending at 51.2).
    """
    first = every if start is None else start
    return tuple(first + i * every for i in range(count))


def _finite(x: object) -> bool:
    """True for a finite real number (not a bool); TrainConfig's validation of float fields."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of one (ensemble) training run; serialisable with :meth:`to_dict`.

    Parameters
    ----------
    steps : int
        Number of optimiser updates.
    lr : float
        Base learning rate.
    optimizer : {'adam', 'adamw', 'sgd'}
        'sgd' with ``batch_size=None`` is full-batch gradient descent (Edelman App D.2).
    betas, eps : Adam(W) parameters. momentum : SGD momentum.
    weight_decay : float
        The optimiser's own (squared-L2) decay; 0 to test Shi Lemma 4.7 (the regulariser alone).
    lam : float
        λ, coefficient of the norm regulariser (module doc).
    reg_power : float or None
        r in λ(‖θ‖_{2,ν}^ν)^{r/ν}; None means r = ν.
    lr_doublings : tuple of int
        Steps t at which the lr doubles (in force for updates t, t+1, ...).
    warmup_steps : int
        Linear warm-up lr·min(1, (t+1)/warmup_steps) (Shi App C.10.1).
    batch_size : int or None
        None = full batch over the whole task; else minibatches drawn with replacement (from ``data_seed``).
    chunk_size : int or None
        Split each (full or mini) batch into chunks of this many points and accumulate gradients (same
        gradient up to round-off, bounded memory). None sizes the chunks automatically (:mod:`verify.train.polynomial_step`):
        the whole batch if it fits, cache-sized chunks on the CPU, the largest chunk the free memory allows on
        a GPU.
    init_std : float or None
        Std of the i.i.d. normal initialisation; None = 1/sqrt(d).
    seeds : tuple of int
        One network per seed (its initialisation depends only on its seed).
    eval_every : int
        Metrics are recorded at step 0, every ``eval_every`` steps and at the last step.
    dtype : {'float64', 'float32', 'tf32'} or None
        Training dtype; None = float64 on CPU, float32 on CUDA. 'tf32' trains in float32 with TensorFloat-32
        matrix products (CUDA only; never switched on unless asked). A run-wide ``RunOptions.dtype`` replaces it.
        Every recorded metric is evaluated in float64 whatever the training dtype.
    checkpoint_every : int or None
        With a checkpoint path: write every that many steps (always at the end).
    data_seed : int
        Seed of the minibatch sampler. Every seed of the ensemble draws the same minibatches (the seeds differ in
        their initialisation only); ``RunOptions.seed_offset`` shifts it with the seeds, so a fresh seed set also
        draws a fresh minibatch order.
    nan_check_every : int
        Check loss and weights for NaN/inf every that many steps (1 = every step; larger saves GPU syncs).
    num_threads : int or None
        torch intra-op CPU threads during this run (restored afterwards); None leaves the setting alone. For
        tiny networks 1 thread is much faster than several (thread synchronisation dominates).
    strategy : {'auto', 'batched', 'loop', 'vmap'}
        How the seeds go through the step (:mod:`verify.train.polynomial_step`); 'auto' decides by size and a short probe.
        All give the same weights up to floating-point round-off.
    compile : bool or None
        ``torch.compile`` the step's chunk gradient; None decides automatically: runs estimated above
        ``verify.train.polynomial_step.COMPILE_MIN_RUN_S`` are compiled and keep the compiled step only when its probe is faster.
    """

    steps: int
    lr: float
    optimizer: str = "adam"
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    momentum: float = 0.0
    weight_decay: float = 0.0
    lam: float = 0.0
    reg_power: float | None = None
    lr_doublings: tuple[int, ...] = ()
    warmup_steps: int = 0
    batch_size: int | None = None
    chunk_size: int | None = None
    init_std: float | None = None
    seeds: tuple[int, ...] = (0,)
    eval_every: int = 100
    dtype: str | None = None
    checkpoint_every: int | None = None
    data_seed: int = 0
    nan_check_every: int = 1
    num_threads: int | None = None
    strategy: str = "auto"
    compile: bool | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "betas", tuple(float(b) for b in self.betas))
        object.__setattr__(self, "lr_doublings", tuple(int(t) for t in self.lr_doublings))
        object.__setattr__(self, "seeds", tuple(int(s) for s in self.seeds))
        if int(self.steps) != self.steps or self.steps < 0:
            raise ValueError(f"steps must be a non-negative integer, got {self.steps!r}")
        if not (_finite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be positive and finite, got {self.lr!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if len(self.betas) != 2 or not all(_finite(b) and 0 <= b < 1 for b in self.betas):
            raise ValueError(f"betas must be a pair of numbers in [0, 1) (Adam's decay rates), got {self.betas!r}")
        if not (_finite(self.eps) and self.eps > 0):
            raise ValueError(f"eps must be positive and finite (Adam divides by sqrt(v) + eps), got {self.eps!r}")
        for name in ("lam", "weight_decay", "momentum"):
            v = getattr(self, name)
            if not (_finite(v) and v >= 0):
                raise ValueError(f"{name} must be non-negative and finite, got {v!r}")
        if self.reg_power is not None and not (_finite(self.reg_power) and self.reg_power > 0):
            raise ValueError(f"reg_power must be positive (Edelman Thm 7.1 needs r > 0), got {self.reg_power!r}")
        if self.init_std is not None and not (_finite(self.init_std) and self.init_std > 0):
            raise ValueError(f"init_std must be None or positive and finite, got {self.init_std!r}")
        if list(self.lr_doublings) != sorted(self.lr_doublings) or any(t < 0 for t in self.lr_doublings):
            raise ValueError(f"lr_doublings must be non-negative and sorted, got {self.lr_doublings!r}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be a non-empty tuple of distinct integers, got {self.seeds!r}")
        for name in ("eval_every", "nan_check_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        for name in ("batch_size", "chunk_size", "checkpoint_every", "num_threads"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise ValueError(f"{name} must be None or >= 1, got {v!r}")
        if self.warmup_steps < 0:
            raise ValueError(f"warmup_steps must be >= 0, got {self.warmup_steps!r}")
        if self.dtype not in (None, *DTYPE_NAMES):
            raise ValueError(f"dtype must be one of {DTYPE_NAMES} or None, got {self.dtype!r}")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {self.strategy!r}")
        if self.compile not in (None, True, False):
            raise ValueError(f"compile must be None, True or False, got {self.compile!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict (tuples become lists)."""
        return {
            f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v) for f in dataclasses.fields(self)
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Inverse of :meth:`to_dict`."""
        return cls(**data)

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


def learning_rate(config: TrainConfig, step: int) -> float:
    """The lr of update ``step`` (0-based): base lr × 2^{#doublings <= step} × warm-up factor."""
    lr = config.lr * 2.0 ** sum(1 for t in config.lr_doublings if t <= step)
    if config.warmup_steps:
        lr *= min(1.0, (step + 1) / config.warmup_steps)
    return lr


@dataclass
class TrainResult:
    """Outcome of :func:`train`.

    Attributes
    ----------
    networks : list of HomogeneousNetwork
        Final float64 networks, one per seed (order of ``config.seeds``).
    history : list of dict
        One record per evaluation: ``step``, ``lr`` and per-seed lists ``loss``, ``cross_entropy``,
        ``accuracy``, ``margin`` (h), ``norm_power``, ``normalized_margin`` and ``ratio`` (None without a
        reference margin).
    config : TrainConfig
    device, dtype : str
        The device and the training dtype that ran (``tf32``: float32 storage, TF32 products).
    wall_time : float
        Seconds spent in this call (excluding a resumed checkpoint's earlier time).
    total_wall_time : float
        Seconds over all segments of a resumed run.
    steps_done : int
    resumed_from : int or None
        Step of the checkpoint this call resumed from.
    stopped_early : bool
        True when the callback asked to stop.
    reference_margin : float or None
    plan : dict or None
        The :class:`verify.train.polynomial_step.StepPlan` the run used (strategy, chunk, memory and time estimates).
    """

    networks: list[HomogeneousNetwork]
    history: list[dict[str, Any]]
    config: TrainConfig
    device: str
    dtype: str
    wall_time: float
    total_wall_time: float
    steps_done: int
    resumed_from: int | None = None
    stopped_early: bool = False
    reference_margin: float | None = None
    plan: dict[str, Any] | None = None

    def metric(self, name: str) -> np.ndarray:
        """History of a per-seed metric as an array (n_evals, S)."""
        return np.array([rec[name] for rec in self.history], dtype=np.float64)

    @property
    def steps(self) -> np.ndarray:
        """Steps of the history records."""
        return np.array([rec["step"] for rec in self.history])

    @property
    def final(self) -> dict[str, Any]:
        """The last history record."""
        return self.history[-1]

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible summary (no weights)."""
        return {
            "config": self.config.to_dict(),
            "device": self.device,
            "dtype": self.dtype,
            "wall_time": self.wall_time,
            "total_wall_time": self.total_wall_time,
            "steps_done": self.steps_done,
            "resumed_from": self.resumed_from,
            "stopped_early": self.stopped_early,
            "reference_margin": self.reference_margin,
            "plan": self.plan,
            "final": self.final,
        }


# ---------------------------------------------------------------------------------------------------- metrics


def _per_seed_cross_entropy(F: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Sum over points of the softmax cross-entropy, per seed; F (S, n, C), labels (n,) -> (S,)."""
    logp = F.log_softmax(dim=2)
    idx = labels.view(1, -1, 1).expand(F.shape[0], -1, 1)
    return -logp.gather(2, idx).squeeze(2).sum(dim=1)


def _regulariser(norm_power: torch.Tensor, lam: float, reg_power: float | None, nu: int) -> torch.Tensor:
    r"""λ(‖θ‖_{2,ν}^ν)^{r/ν}, per seed."""
    if lam == 0:
        return torch.zeros_like(norm_power)
    r = nu if reg_power is None else reg_power
    return lam * (norm_power if r == nu else norm_power.pow(r / nu))


@torch.no_grad()
def ensemble_metrics(
    model: HomogeneousEnsemble,
    inputs: torch.Tensor,
    labels: torch.Tensor,
    *,
    lam: float = 0.0,
    reg_power: float | None = None,
    reference_margin: float | None = None,
) -> dict[str, list[float] | None]:
    r"""Per-seed metrics over a whole dataset, computed in float64, one seed at a time in chunks of
    :func:`evaluation_rows` points (:func:`verify.train.homogeneous.seed_logit_chunks`).

    Returns lists of S floats: ``loss`` (mean CE + regulariser), ``cross_entropy``, ``accuracy`` (correct
    logit strictly largest), ``margin`` :math:`h = \min g` (Shi Def 4.3), ``norm_power``
    :math:`\|\theta\|_{2,\nu}^\nu`, ``normalized_margin`` :math:`h/\|\theta\|_{2,\nu}^\nu` and ``ratio``
    (normalized margin / ``reference_margin``, or None).
    """
    if inputs.shape[0] == 0 or labels.shape != (inputs.shape[0],):
        raise ValueError(
            f"an evaluation needs one label per input and at least one input; got {tuple(inputs.shape)} inputs and "
            f"{tuple(labels.shape)} labels"
        )
    U = model.U.detach().to(torch.float64)
    W = model.W.detach().to(torch.float64)
    if inputs.dtype.is_floating_point:
        inputs = inputs.to(torch.float64)
    S, n_total = U.shape[0], inputs.shape[0]
    ce = torch.zeros(S, dtype=torch.float64, device=U.device)
    correct = torch.zeros(S, dtype=torch.float64, device=U.device)
    h = torch.full((S,), math.inf, dtype=torch.float64, device=U.device)
    rows = evaluation_rows(U.shape[1], W.shape[2], U.device)
    for s, start, F in seed_logit_chunks(U, W, model.degree, inputs, rows):
        y = labels[start : start + F.shape[0]]
        ce[s] += _per_seed_cross_entropy(F[None], y)[0]
        right = F.gather(1, y[:, None]).squeeze(1)
        wrong = F.scatter(1, y[:, None], -math.inf).amax(dim=1)
        g = right - wrong
        h[s] = torch.minimum(h[s], g.min())
        correct[s] += (g > 0).sum()
    norm_power = (U.square().sum(dim=(2, 3)) + W.square().sum(dim=2)).pow(model.homogeneity / 2).sum(dim=1)
    ce = ce / n_total
    loss = ce + _regulariser(norm_power, lam, reg_power, model.homogeneity)
    normalized = torch.where(norm_power > 0, h / norm_power, torch.full_like(h, math.nan))
    out: dict[str, list[float] | None] = {
        "loss": loss.tolist(),
        "cross_entropy": ce.tolist(),
        "accuracy": (correct / n_total).tolist(),
        "margin": h.tolist(),
        "norm_power": norm_power.tolist(),
        "normalized_margin": normalized.tolist(),
        "ratio": None if reference_margin is None else (normalized / float(reference_margin)).tolist(),
    }
    return out


# ---------------------------------------------------------------------------------------------------- checkpoints


def _task_fingerprint(task: Task, inputs: np.ndarray, labels: np.ndarray) -> dict[str, Any]:
    digest = hashlib.sha1(np.ascontiguousarray(inputs).tobytes())
    digest.update(np.ascontiguousarray(labels).tobytes())
    return {
        "type": type(task).__name__,
        "n_points": int(task.n_points),
        "n_classes": int(task.n_classes),
        "n_blocks": int(task.n_blocks),
        "block_size": int(task.block_size),
        "data_sha1": digest.hexdigest(),
    }


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a checkpoint written by :func:`train` (:func:`verify.runtime.checkpoint.read_checkpoint`: tensors on the CPU,
    ``weights_only`` loading, so a file holding anything but tensors and plain data is refused, not executed)."""
    return read_checkpoint(path)


# ---------------------------------------------------------------------------------------------------- training


def _make_optimizer(params: Sequence[torch.nn.Parameter], config: TrainConfig) -> torch.optim.Optimizer:
    """The configured optimiser, with torch's fused (single-kernel) implementation where this build has one.

    Every variant is element-wise, so the per-seed independence of the ensemble holds for all of them.
    """
    params = list(params)
    if config.optimizer in ("adam", "adamw"):
        cls = torch.optim.Adam if config.optimizer == "adam" else torch.optim.AdamW
        kwargs: dict[str, Any] = dict(
            lr=config.lr, betas=config.betas, eps=config.eps, weight_decay=config.weight_decay
        )
    else:
        cls = torch.optim.SGD
        kwargs = dict(lr=config.lr, momentum=config.momentum, weight_decay=config.weight_decay)
    try:
        return cls(params, fused=True, **kwargs)
    except (RuntimeError, TypeError, ValueError):  # no fused kernel for this device / dtype / torch version
        return cls(params, **kwargs)


def _gradient_step(
    model: HomogeneousEnsemble,
    optimizer: torch.optim.Optimizer,
    x: torch.Tensor,
    y: torch.Tensor,
    config: TrainConfig,
) -> torch.Tensor:
    """One update on the batch (x, y); returns the per-seed objective before the update (detached, (S,))."""
    optimizer.zero_grad(set_to_none=True)
    n = x.shape[0]
    chunk = config.chunk_size or n
    per_seed = torch.zeros(model.n_seeds, dtype=model.U.dtype, device=model.U.device)
    for start in range(0, n, chunk):
        ce = _per_seed_cross_entropy(model(x[start : start + chunk]), y[start : start + chunk]) / n
        objective = ce
        if start + chunk >= n and config.lam > 0:
            objective = ce + _regulariser(model.norm_power(), config.lam, config.reg_power, model.homogeneity)
        objective.sum().backward()
        per_seed += objective.detach()
    optimizer.step()
    return per_seed


def _fused_step(
    model: HomogeneousEnsemble,
    optimizer: torch.optim.Optimizer,
    executor: EnsembleStep,
    x: torch.Tensor,
    y: torch.Tensor,
    config: TrainConfig,
) -> torch.Tensor:
    """:func:`_gradient_step` with the data gradient from ``executor`` (:mod:`verify.train.polynomial_step`, the same
    gradient written out by hand) and the regulariser's gradient written out too (:func:`_add_regulariser_gradient`);
    returns the per-seed objective."""
    optimizer.zero_grad(set_to_none=True)
    per_seed = executor(model.U, model.W, x, y)
    if config.lam > 0:
        per_seed = per_seed + _add_regulariser_gradient(model, config.lam, config.reg_power)
    optimizer.step()
    return per_seed


@torch.no_grad()
def _add_regulariser_gradient(model: HomogeneousEnsemble, lam: float, reg_power: float | None) -> torch.Tensor:
    r"""The regulariser :math:`\lambda N_s^{r/\nu}` per seed (:func:`_regulariser`, :math:`N_s =
    \sum_i q_{s,i}^{\nu/2}`, :math:`q_{s,i} = \|\theta_{s,i}\|_2^2`), its gradient added to ``U.grad`` and ``W.grad``:

    .. math:: \frac{\partial}{\partial\theta_{s,i}} \lambda N_s^{r/\nu}
              = \lambda\, r\, N_s^{r/\nu - 1}\, q_{s,i}^{\nu/2 - 1}\, \theta_{s,i}

    written out (five element-wise passes over the parameters instead of autograd's graph of them; the test suite
    checks it against autograd of :func:`_regulariser`). Returns the per-seed value (S,).
    """
    nu = model.homogeneity
    r = nu if reg_power is None else reg_power
    q = model.neuron_norms_squared()  # (S, m)
    N = q.pow(nu / 2).sum(dim=1)  # (S,)
    coef = lam * r * (N.pow(r / nu - 1) if r != nu else torch.ones_like(N))
    g = q.pow(nu / 2 - 1).mul_(coef[:, None])  # (S, m)
    assert model.U.grad is not None and model.W.grad is not None
    model.U.grad.addcmul_(g[:, :, None, None], model.U)
    model.W.grad.addcmul_(g[:, :, None], model.W)
    return lam * (N if r == nu else N.pow(r / nu))


def train(
    task: Task,
    degree: int,
    width: int,
    config: TrainConfig,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    reference_margin: float | None = None,
    callback: Callable[[int, HomogeneousEnsemble, dict[str, Any]], bool | None] | None = None,
) -> TrainResult:
    r"""Train one polynomial network per seed on ``task`` (all seeds batched; module doc for the objective).

    Parameters
    ----------
    task : numerics.margins.Task
        Fully enumerated dataset; ``task.batch(0, N)`` is loaded once onto the device.
    degree, width : int
        Activation exponent and number of neurons m.
    config : TrainConfig
    options : verify.runtime.options.RunOptions
        Device ('auto', 'cpu', 'cuda', 'cuda:N': where a run happens is not part of its configuration, so a
        checkpoint written on one device resumes on another), a run-wide dtype (replaces ``config.dtype``), the
        seed offset (shifts ``config.seeds``; the result's ``config`` holds the seeds and dtype that ran), the
        progress bar, the memory-check override and the checkpoint file. Checkpoints (params, optimiser state,
        step, history, config) are written atomically every ``options.checkpoint_every`` (else
        ``config.checkpoint_every``) steps, every ``CHECKPOINT_SECONDS`` of wall time, at the end and on an
        interrupt. A checkpoint is bound to the code revision and, inside :func:`verify.runtime.claim_run.claim_run`
        (while a claim runs), to the claim and its configuration. If the file exists, training resumes from it
        (logged, and recorded by :func:`verify.runtime.claim_run.note_resumed`); a checkpoint of a different
        binding, config, task, degree, width or reference raises :class:`CheckpointMismatchError`, or is ignored
        with a log line while a claim runs (only the fields in ``RESUMABLE_FIELDS`` may differ: ``steps``,
        ``checkpoint_every``, ``nan_check_every``, ``num_threads``). An unreadable file is moved aside to
        ``<path>.corrupt`` and training starts fresh. A checkpoint already at ``config.steps`` is returned as is;
        one beyond it is refused. A checkpoint that cannot be written (disk full) is a warning, not an error.
    reference_margin : float, optional
        Value the normalized margin is compared with (e.g. ``float(theory.modular.max_margin(p, k))``).
    callback : callable, optional
        ``callback(step, model, record)`` after each evaluation; returning True stops training there.

    Raises
    ------
    verify.runtime.divergence.TrainingDiverged
        When the loss or the weights of a seed become NaN/inf (names the step and the seeds; with
        ``nan_check_every > 1`` the step is the first check after the divergence).
    ValueError
        For ``dtype='tf32'`` without a CUDA device.
    """
    config, setting = options.configure(config, "polynomial", seed_fields=POLYNOMIAL_SEED_FIELDS)
    with torch_threads(config.num_threads), setting.precision():
        return _PolynomialRun(task, degree, width, config, setting, options, reference_margin).run(callback)


def evaluations_line(seconds: float, step: int, config: TrainConfig, per_update: float | None) -> str | None:
    """What the evaluations left add to a run, once its first evaluation at ``step`` took ``seconds``: the trainer's
    plan line (:func:`verify.train.polynomial_step.plan_step`) times the updates alone, ``per_update`` seconds each.
    None when they add less than :data:`verify.runtime.memory.PRINT_ESTIMATE_S`. The evaluations left are those at
    the multiples of ``eval_every`` after ``step`` and at the last step.

    >>> cfg = TrainConfig(steps=50_000, lr=0.005, eval_every=2500)
    >>> print(evaluations_line(1980.0, 0, cfg, 0.78))
    polynomial: an evaluation took 33.0 min; the 20 left add about 11.0 h to the plan line's 10.8 h of updates: about 21.8 h in all
    >>> evaluations_line(0.5, 0, cfg, 0.78) is None
    True
    """
    left = evaluation_count(config.steps, config.eval_every, after=step)
    if left == 0 or left * seconds < PRINT_ESTIMATE_S:
        return None
    line = f"polynomial: an evaluation took {format_seconds(seconds)}; the {left} left add about {format_seconds(left * seconds)}"
    if per_update is None:
        return line
    updates = per_update * (config.steps - step)
    return (
        f"{line} to the plan line's {format_seconds(updates)} of updates: about {format_seconds(updates + left * seconds)}"
        " in all"
    )


def estimate_run(
    task: Task,
    degree: int,
    width: int,
    config: TrainConfig,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    probe: bool = True,
    free_bytes: int | None = None,
) -> StepPlan:
    """The plan :func:`train` would make for this run (strategy, chunk, peak memory, time per step), without
    training: the data and the initial ensemble are built on ``options.device`` and, with ``probe``, one chunk of
    each candidate strategy is timed. ``free_bytes`` plans for a device with that much free memory instead of the
    one at hand. Raises :class:`verify.runtime.memory.InsufficientMemoryError` like :func:`train` when it would not
    fit (unless ``options.ignore_memory_check``).
    """
    config, setting = options.replace(checkpoint_path=None).configure(
        config, "polynomial", seed_fields=POLYNOMIAL_SEED_FIELDS
    )
    run = _PolynomialRun(task, degree, width, config, setting, options, None)
    with torch_threads(config.num_threads), setting.precision():  # probed as train() would run it
        return run.plan(config.steps, probe=probe, free_bytes=free_bytes, dry_run=True).plan


def initial_ensemble(
    task: Task, degree: int, width: int, config: TrainConfig, dtype: torch.dtype, device: torch.device
) -> HomogeneousEnsemble:
    """The networks :func:`train` starts from: one per seed of ``config`` (``config.init_std``), shaped for ``task``
    (its blocks and classes), of activation degree ``degree`` and width ``width``, in ``dtype`` on ``device``."""
    return HomogeneousEnsemble.from_seeds(
        config.seeds,
        width=width,
        n_blocks=task.n_blocks,
        block_size=task.block_size,
        n_classes=task.n_classes,
        degree=degree,
        init_std=config.init_std,
        dtype=dtype,
        device=device,
    )


#: Points of the dataset that :func:`probe_evaluation` reads (all seeds).
EVAL_PROBE_POINTS = 2048


def probe_evaluation(
    task: Task, degree: int, width: int, config: TrainConfig, options: RunOptions, *, points: int = EVAL_PROBE_POINTS
) -> float:
    """Seconds per point of the dataset of one evaluation (:func:`ensemble_metrics`, float64, every seed of
    ``config``) on ``options.device``, timed on the first ``points`` points of ``task`` (or all of them) after a
    warm-up on one chunk: one evaluation of the whole dataset takes about ``task.n_points`` times as long. The plan
    compares it with its model of an evaluation (``verify/report/plan.py``), which counts multiply-adds only.
    """
    if points < 1:
        raise ValueError(f"points must be at least 1, got {points!r}")
    device = options.resolved_device()
    n = min(int(points), int(task.n_points))
    x, y = task.batch(0, n)
    inputs, labels = as_input_tensor(x, device, torch.float64), torch.as_tensor(y, dtype=torch.int64, device=device)
    model = initial_ensemble(
        task, degree, width, config.replace(seeds=options.seeds(config.seeds)), torch.float64, device
    )
    warm = evaluation_rows(width, task.n_classes, device)
    with torch_threads(config.num_threads):
        ensemble_metrics(model, inputs[:warm], labels[:warm])
        synchronize(device)
        start = time.perf_counter()
        ensemble_metrics(model, inputs, labels)
        synchronize(device)
        return (time.perf_counter() - start) / n


class _PolynomialRun:
    """One :func:`train` call: the data and the ensemble on the device, the optimiser, the checkpoint."""

    def __init__(
        self,
        task: Task,
        degree: int,
        width: int,
        config: TrainConfig,
        setting: RunSetting,
        options: RunOptions,
        reference_margin: float | None,
    ) -> None:
        self.t_start = time.perf_counter()
        self.config, self.setting, self.options = config, setting, options
        device, dtype = setting.device, setting.dtype
        inputs_np, labels_np = task.batch(0, task.n_points)
        self.X = as_input_tensor(inputs_np, device, dtype)
        self.Y = torch.as_tensor(labels_np, dtype=torch.int64, device=device)
        self.meta = {
            "degree": int(degree),
            "width": int(width),
            "task": _task_fingerprint(task, inputs_np, labels_np),
            "reference_margin": None if reference_margin is None else float(reference_margin),
        }
        self.model = initial_ensemble(task, degree, width, config, dtype, device)

    def plan(
        self, steps: int, *, probe: bool = True, free_bytes: int | None = None, dry_run: bool = False
    ) -> EnsembleStep:
        """:func:`verify.train.polynomial_step.plan_step` for this model, dataset and config (probed on one batch's
        shapes)."""
        X, Y, config = self.X, self.Y, self.config
        n_points = X.shape[0]
        n_batch = config.batch_size or n_points
        rows = torch.arange(n_batch, device=X.device) % n_points
        return plan_step(
            self.model.U,
            self.model.W,
            self.model.degree,
            X[rows],
            Y[rows],
            StepRequest(
                dataset_points=n_points,
                optimizer_slots=2 if config.optimizer in ("adam", "adamw") else int(config.momentum > 0),
                steps=steps,
                strategy=config.strategy,
                chunk_size=config.chunk_size,
                compile=config.compile,
                ignore_memory_check=self.options.ignore_memory_check,
                probe=probe,
                free_bytes=free_bytes,
                dry_run=dry_run,
            ),
        )

    def run(self, callback: Callable[[int, HomogeneousEnsemble, dict[str, Any]], bool | None] | None) -> TrainResult:
        """Train (resuming from the checkpoint when there is one) and return the result."""
        config, model, X, Y, meta = self.config, self.model, self.X, self.Y, self.meta
        reference_margin = meta["reference_margin"]
        n_points = X.shape[0]
        optimizer = _make_optimizer([model.U, model.W], config)
        sampler = torch.Generator(device="cpu").manual_seed(config.data_seed) if config.batch_size else None

        step, history, previous_time, resumed_from = 0, [], 0.0, None
        ckpt = Checkpoint.for_run(
            self.options,
            self.setting,
            "polynomial",
            config.to_dict(),
            config.steps,
            meta=meta,
            resumable=RESUMABLE_FIELDS,
        )
        state = (
            None
            if ckpt is None
            else ckpt.load(fits=lambda st: check_saved_tensors(st, {"U": model.U, "W": model.W}, SAVED_KEYS))
        )
        if state is not None:
            assert ckpt is not None
            with torch.no_grad():
                model.U.copy_(state["U"])
                model.W.copy_(state["W"])
            optimizer.load_state_dict(state["optimizer"])
            if sampler is not None and state["sampler"] is not None:
                sampler.set_state(state["sampler"])
            step, history, previous_time = int(state["step"]), list(state["history"]), float(state["wall_time"])
            resumed_from = step
            ckpt.resumed(step)

        executor = self.plan(config.steps - step)

        def elapsed() -> float:
            return time.perf_counter() - self.t_start

        def save(step: int) -> None:
            assert ckpt is not None
            state = {
                "U": model.U.detach().cpu(),
                "W": model.W.detach().cpu(),
                "optimizer": optimizer.state_dict(),
                "sampler": None if sampler is None else sampler.get_state(),
                "history": history,
                "wall_time": previous_time + elapsed(),
            }
            ckpt.save(step, state)

        timed: list[float] = []  # the first evaluation computed here: its seconds, then its callback's; then done

        def evaluate(step: int) -> dict[str, Any]:
            if history and history[-1]["step"] == step:  # the last record of a resumed checkpoint
                return history[-1]
            start = time.perf_counter()
            rec = {"step": step, "lr": learning_rate(config, step)}
            rec.update(
                ensemble_metrics(
                    model, X, Y, lam=config.lam, reg_power=config.reg_power, reference_margin=reference_margin
                )
            )
            history.append(rec)
            if not timed:
                timed.append(time.perf_counter() - start)
            return rec

        def stop(step: int, rec: dict[str, Any]) -> bool:
            start = time.perf_counter()
            stopped = callback is not None and bool(callback(step, model, rec))
            if len(timed) == 1:  # the first evaluation and the callback's work on it (a split's test half)
                timed.append(time.perf_counter() - start)
                line = None if stopped else evaluations_line(sum(timed), step, config, executor.plan.seconds_per_step)
                if line is not None:
                    print(line, file=sys.stderr, flush=True)
            return stopped

        def update(step: int) -> torch.Tensor:
            if sampler is None:
                x, y = X, Y
            else:
                idx = torch.randint(n_points, (config.batch_size,), generator=sampler).to(X.device)
                x, y = X[idx], Y[idx]
            return _fused_step(model, optimizer, executor, x, y, config)

        end = run_loop(
            update,
            config.steps,
            evaluate=evaluate,
            eval_every=config.eval_every,
            stop=stop,
            optimizer=optimizer,
            lr_at=partial(learning_rate, config),
            guard=NonFiniteGuard(
                config.seeds,
                "polynomial",
                "lower lr or init_std, or raise lam",
                every=config.nan_check_every,
                weights={"U": model.U, "W": model.W},
            ),
            resumption=Resumption(
                start=step,
                save=None if ckpt is None else save,
                checkpoint_every=self.options.checkpoint_every or config.checkpoint_every,
                checkpoint_seconds=CHECKPOINT_SECONDS,
                resumed=resumed_from is not None,
            ),
            bar=Bar(enabled=self.options.progress, desc="train", postfix=_postfix),
        )

        wall = elapsed()
        return TrainResult(
            networks=model.networks(),
            history=history,
            config=config,
            device=str(self.setting.device),
            dtype=self.setting.dtype_name,
            wall_time=wall,
            total_wall_time=previous_time + wall,
            steps_done=end.step,
            resumed_from=resumed_from,
            stopped_early=end.stopped,
            reference_margin=reference_margin,
            plan=executor.plan.to_dict(),
        )


def _postfix(rec: dict[str, Any]) -> dict[str, str]:
    post = {"loss": f"{max(rec['loss']):.3g}", "acc": f"{min(rec['accuracy']):.3f}"}
    if rec["ratio"] is not None:
        post["ratio"] = f"{min(rec['ratio']):.4f}"
    else:
        post["nmargin"] = f"{min(rec['normalized_margin']):.3g}"
    return post
