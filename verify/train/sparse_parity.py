r"""SGD on (n,k)-sparse parities as batched seed ensembles (Edelman thesis Ch. 5 "hidden progress", Ch. 6
offline "Pareto frontiers"; experiments of App. B.3-B.4 and App. C.3; docs/training.md).

Problem (Sec. 5.2). :math:`x\sim\mathrm{Unif}\{\pm1\}^n`, :math:`y=\chi_S(x)=\prod_{i\in S}x_i` with
S = [k] = coordinates ``0..k-1`` (WLOG by permutation symmetry, App. B.1.2).

Update (eq. 5.1 / B.3), plain SGD without momentum, per seed on its own mini-batch of size B:

* ``decay="pytorch"`` (Ch. 6 experiments, PyTorch ``weight_decay``; our reading, docs/training.md):
  :math:`\theta\leftarrow\theta-\eta(\nabla+\lambda\theta)`;
* ``decay="multiplicative"`` (Ch. 5 theory): :math:`\theta\leftarrow(1-\lambda)\theta-\eta\nabla`.

Losses (App. B.4.1): ``hinge`` :math:`(1-y\hat y)_+` (default; all thesis figures), ``square``
:math:`(y-\hat y)^2`, ``logistic`` :math:`\log(1+e^{-y\hat y})` (the cross-entropy with the label y, which the
printed formula of App. B.4.1 drops; docs/training.md).

Architectures (Sec. 5.3.1, App. B.4.1), all with a leading seed dimension E (einsum/bmm; no Python loop over seeds):

* ``arch="mlp"``: :math:`f(x)=u^\top\sigma(Wx+b)`, W (E,r,n), b (E,r), u (E,r); ``second_layer=False`` fixes
  u ≡ 1 (settings (xi)-(xiv)). A single neuron is ``width=1``. ``activation``:

  - ``relu``; ``power`` :math:`z^k` (settings (iv)-(vi));
  - ``sinusoid`` :math:`\cos(\pi(z-k)/2)` (setting (x); :math:`\sigma(w_S^\top x)=\chi_S(x)`);
  - ``zigzag``: the k-zigzag, piecewise-linear through :math:`(k-2j,(-1)^j)`, j=0..k, constant outside
    [-k, k] (the thesis leaves the extension open; constant is our choice, docs/training.md);
  - ``oscillating``: the degree-k polynomial through the same points (coefficients from
    :func:`theory.boolean.oscillating_polynomial`, evaluated by Horner in torch).

  ``input_scale`` c gives :math:`\sigma(cz)` (Fig. 5.1 setting (x) uses c = 2).
* ``arch="polynet"`` (setting (xv)): :math:`f(x)=\prod_{i=1}^k(w_i^\top x+b_i)`, W (E,k,n), b (E,k).

Initialisations (App. B.4.1); weights i.i.d. per parameter with fan_in/fan_out of the layer
viewed as ``nn.Linear`` (second layer: fan_in = r, fan_out = 1; a PolyNet factor: fan_in = n, fan_out = 1):

* ``xavier``: :math:`U[-c,c]`, :math:`c=\sqrt{6/(\mathrm{fan_{in}}+\mathrm{fan_{out}})}`;
* ``kaiming``: :math:`N(0, 2/\mathrm{fan_{in}})`;
* ``sign``: :math:`\mathrm{Unif}\{-c,c\}` with the Xavier c (thesis: "the same choice of c");
* ``default``: PyTorch ``nn.Linear``: :math:`U[\pm1/\sqrt{\mathrm{fan_{in}}}]`;
* ``sparse``: first-layer rows with exactly ``sparsity`` = s non-zeros at uniformly random positions, values
  :math:`U[-1,1]` (**our assumption**: App. C.3 does not give the values, docs/training.md); the second layer
  uses the PyTorch default.

Biases are always PyTorch-default :math:`U[\pm1/\sqrt{\mathrm{fan_{in}}}]` (App. B.4.1, App. C.3).

Data. Every seed has its own parameters *and* its own data stream (a ``torch.Generator`` per seed for the
initialisation and one for the data, both derived from the seed only), so a seed's trajectory does not depend
on the other seeds of the ensemble (up to floating-point reassociation in batched kernels). ``data_seeds``
separates the two (Fig. 5.2 centre: initialisation against SGD noise): member e is initialised from ``seeds[e]``
and draws its data stream (online batches; offline sample, labels and epoch order) from ``data_seeds[e]``, the
stream that seed ``data_seeds[e]`` draws by default; ``None`` (the default) is ``data_seeds = seeds``, today's
streams exactly.

* ``mode="online"`` (Ch. 5): a fresh i.i.d. batch every step.
* ``mode="offline"`` (Ch. 6): a fixed training sample of ``n_train`` = m points per seed; the batches read an
  index stream that concatenates independent random permutations of [m] (shuffled epochs; a batch may
  straddle two epochs, so every batch has exactly B points).
* ``label_noise`` p flips each *training* label independently with probability p (B.3.6); ``random_labels``
  draws training labels uniformly at random, independent of x (hidden-progress control). Validation/test
  labels are always the clean :math:`\chi_S`.

Evaluation every ``eval_every`` steps (and at step 0 and at the end) on one fixed validation set shared by all
seeds (``n_val`` points, drawn once from ``val_seed``; online default 8192 = 2^13 as Sec. 5.3.1, offline
default 10^4 held-out points as Ch. 6). Accuracy counts :math:`\mathrm{sign}(f)=y` with f = 0 an error.
Offline, ``train_accuracy=True`` also records each seed's accuracy on its own m training points (against the labels
it trains on) at every evaluation (Fig. 5.4 right / B.11: train against test error). Convergence time :math:`t_c` = first evaluated step at which the validation error is ≤ ``target_error``
(default 0, i.e. 100% accuracy, online; 0.1 offline). A converged seed is frozen (its updates are masked, then
it is dropped from the computation; its recorded metrics stay constant) and the run stops when every seed has
converged or after ``steps`` updates; unconverged seeds have ``t_c = inf`` (``None`` in
:meth:`SparseParityResult.to_dict`). A seed whose parameters become non-finite is frozen and flagged in ``diverged``
(it never converges), with the evaluated step at which that was seen in ``diverged_at``; a run whose seeds all
diverged says so (:meth:`SparseParityResult.divergence`: "diverged at step N", not "0/E seeds converged"). Not implemented: the thesis's rule for under-parameterised nets (r < k: 10 consecutive
batches at >= 55% accuracy), the Parity Transformer and Adam.

Hidden-progress measures (Sec. 5.5), per evaluation and seed, on the first-layer weights W (the
whole W of a PolyNet): :math:`\rho=\|W_t-W_0\|_\infty` (max-abs entry), the mean :math:`|\Delta W_{ji}|` over
i ∈ S and over i ∉ S (``delta_in``, ``delta_out``; NaN only if k = n), the validation loss and accuracy; for a
single neuron (``width=1``, ``n <= 20``) optionally the relaxed Fourier gap Γ of the population gradient of
the correlation loss at the current (w, b) (``fourier_gap=True``; :func:`numerics.walsh.population_gradient`,
:func:`numerics.walsh.fourier_gap_from_gradient` with ``relaxed=True``, App. B.3.1).

Precision: float32 on every device (speed; the measures above are not sensitive to it); ``dtype="float64"``
is available.

Speed and memory. Batches are drawn on the training device, each seed straight into its slice of a buffer kept
across refills (no host round trip and no stacking copy; the values are bit-identical to drawing per seed), and a
step makes no device-to-host transfer (the frozen-seed mask is a host flag updated at evaluations; while every
seed is active the update skips the mask). Before the run, :func:`memory_estimate` is compared with the device's
free memory (``InsufficientMemoryError`` unless ``RunOptions.ignore_memory_check``); a run whose first updates (at least
``PROBE_STEPS``, and the evaluations among them: :class:`verify.runtime.memory.RunEstimate`) predict more than a minute
prints its memory and time estimate on stderr.

API (also for the Ch. 6 Pareto-frontier grid)::

    from verify.train.sparse_parity import SparseParityConfig, train_parity
    cfg = SparseParityConfig(n=30, k=3, width=100, mode="offline", n_train=600, init="sparse", sparsity=2,
                       lr=0.1, batch_size=32, weight_decay=0.01, decay="pytorch", steps=20_000,
                       eval_every=100, seeds=tuple(range(10)))
    res = train_parity(cfg, RunOptions(device="auto"))
    res.success        # (E,) bool: test error <= 10% within the budget
    res.t_c            # (E,) float, inf where not converged
    res.accuracy       # (T, E) accuracy history at res.steps (T,)
    res.to_dict()      # JSON-ready

One ensemble holds one (n, k, width, m, init) cell and any number of seeds; a grid is a loop over cells.
On a CPU, small networks run fastest with ``num_threads=1``; evaluation on the 10^4 test points costs about
E·10^4·r·n multiply-adds, so choose ``eval_every`` accordingly (e.g. 100). Measured on 2 CPU cores: offline
(30,3), m = 600, width 100, 4 seeds, 2e4-step budget, eval every 100: 10-16 s per cell.
``init="default"`` is the Ch. 6 dense baseline (first layer :math:`U[\pm1/\sqrt n]`, second layer
:math:`U[\pm1/\sqrt r]`).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import sympy
import torch

from numerics.walsh import fourier_gap_from_gradient, population_gradient
from theory.boolean import oscillating_polynomial
from verify.runtime.checkpoint import (
    CHECKPOINT_SECONDS,
    Checkpoint,
    NotACheckpointError,
    check_generator_states,
    check_saved_tensors,
    generator_states,
    set_generator_states,
    tensors_state,
)
from verify.runtime.loop import Bar, Resumption, run_loop, stack_seeds, torch_threads
from verify.runtime.memory import OVERRIDE_HINT, RunEstimate, check_free_memory
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions, RunSetting

__all__ = [
    "ACTIVATIONS",
    "ARCHS",
    "DECAYS",
    "INITS",
    "LOSSES",
    "MODES",
    "SparseParityConfig",
    "SparseParityResult",
    "activation_fn",
    "divergence_reason",
    "forward",
    "init_params",
    "loss_fn",
    "memory_estimate",
    "parity_labels",
    "probe_parity_step",
    "train_parity",
]

ARCHS = ("mlp", "polynet")
ACTIVATIONS = ("relu", "power", "sinusoid", "zigzag", "oscillating")
INITS = ("xavier", "kaiming", "sign", "default", "sparse")
LOSSES = ("hinge", "square", "logistic")
MODES = ("online", "offline")
DECAYS = ("pytorch", "multiplicative")
DATA_CHUNK_ELEMENTS = 1 << 21  # per seed: input entries generated per data chunk (fixes the stream layout)
EVAL_CHUNK_ELEMENTS = 1 << 24  # E * points * width entries per evaluation chunk
PROBE_STEPS = 20  # the time per step printed before a long run is measured on the first PROBE_STEPS updates (at least)
# Config fields left out of to_dict at these default values (added after results were stored under the old dict).
OPTIONAL_FIELDS: dict[str, Any] = {"data_seeds": None, "train_accuracy": False}
# Config fields a checkpoint may differ in from the run resuming it (they do not change the trajectory).
RESUMABLE_FIELDS = frozenset({"steps", "num_threads"})


@dataclass(frozen=True)
class SparseParityConfig:
    """One (n, k) sparse-parity SGD run over an ensemble of seeds (see the module docstring).

    Parameters
    ----------
    n, k : int
        Input dimension and parity degree, 1 <= k <= n; S = {0, ..., k-1}.
    arch : {'mlp', 'polynet'}
    activation : {'relu', 'power', 'sinusoid', 'zigzag', 'oscillating'}
        MLP activation (ignored by the PolyNet).
    width : int
        r, hidden units of the MLP (1 = single neuron). Ignored by the PolyNet (k factors).
    second_layer : bool
        Train u (True) or fix u ≡ 1 (False). Ignored by the PolyNet.
    input_scale : float
        c in σ(c z).
    init : {'xavier', 'kaiming', 'sign', 'default', 'sparse'}
    sparsity : int
        s, non-zeros per first-layer row for ``init='sparse'``.
    loss : {'hinge', 'square', 'logistic'}
    lr, batch_size : SGD step size η and batch size B.
    weight_decay : float
        λ >= 0; ``decay`` selects θ - η(∇ + λθ) ('pytorch') or (1-λ)θ - η∇ ('multiplicative').
    steps : int
        Maximum number of updates.
    eval_every : int
        Evaluate at step 0, every that many steps, and at the last step.
    mode : {'online', 'offline'}
    n_train : int or None
        m, training-sample size per seed (offline only; required there).
    n_val : int or None
        Validation/test points; None = 8192 online, 10^4 offline.
    target_error : float or None
        Convergence when validation error <= target; None = 0 online, 0.1 offline.
    label_noise : float
        Training-label flip probability in [0, 1/2).
    random_labels : bool
        Training labels uniform at random, independent of x.
    seeds : tuple of int
        One model and one data stream per seed.
    data_seeds : tuple of int or None
        Per member, the seed of its data stream (same length as ``seeds``; repeats allowed); None: ``seeds``.
        Omitted from :meth:`to_dict` when None.
    train_accuracy : bool
        Offline only: also record each seed's accuracy on its own training sample at every evaluation
        (:attr:`SparseParityResult.train_accuracy`; Fig. 5.4 right / B.11). Omitted from :meth:`to_dict` when False.
    val_seed : int
        Seed of the shared validation set.
    fourier_gap : bool
        Record Γ of the population gradient (single neuron, n <= 20).
    stop_when_converged : bool
        Freeze converged seeds and stop once all have converged (True), or train every seed for ``steps``.
    keep_params : bool
        Return the final parameters (numpy) in the result.
    dtype : {'float32', 'float64'}
    num_threads : int or None
        torch CPU threads during the run (restored afterwards); None leaves the setting alone.
    """

    n: int
    k: int
    arch: str = "mlp"
    activation: str = "relu"
    width: int = 100
    second_layer: bool = True
    input_scale: float = 1.0
    init: str = "xavier"
    sparsity: int = 2
    loss: str = "hinge"
    lr: float = 0.1
    batch_size: int = 32
    weight_decay: float = 0.0
    decay: str = "pytorch"
    steps: int = 100_000
    eval_every: int = 50
    mode: str = "online"
    n_train: int | None = None
    n_val: int | None = None
    target_error: float | None = None
    label_noise: float = 0.0
    random_labels: bool = False
    seeds: tuple[int, ...] = (0,)
    val_seed: int = 2**31 - 1
    data_seeds: tuple[int, ...] | None = None
    train_accuracy: bool = False
    fourier_gap: bool = False
    stop_when_converged: bool = True
    keep_params: bool = False
    dtype: str = "float32"
    num_threads: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "seeds", tuple(int(s) for s in self.seeds))
        if self.data_seeds is not None:
            object.__setattr__(self, "data_seeds", tuple(int(s) for s in self.data_seeds))
            if len(self.data_seeds) != len(self.seeds) or min(self.data_seeds, default=0) < 0:
                raise ValueError(
                    f"data_seeds must be None or {len(self.seeds)} non-negative integers (one per seed), got "
                    f"{self.data_seeds!r}"
                )
        for name in ("n", "k", "width", "batch_size", "eval_every", "sparsity"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if isinstance(self.steps, bool) or not isinstance(self.steps, (int, np.integer)) or self.steps < 0:
            raise ValueError(f"steps must be an integer >= 0, got {self.steps!r}")
        if self.k > self.n:
            raise ValueError(f"parity degree k = {self.k} exceeds the input dimension n = {self.n}")
        for name, allowed in (
            ("arch", ARCHS),
            ("activation", ACTIVATIONS),
            ("init", INITS),
            ("loss", LOSSES),
            ("mode", MODES),
            ("decay", DECAYS),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"unknown {name} {getattr(self, name)!r}; expected one of {allowed}")
        if self.init == "sparse" and self.sparsity > self.n:
            raise ValueError(f"sparse init needs sparsity s <= n, got s = {self.sparsity}, n = {self.n}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be positive and finite, got {self.lr!r}")
        if not (self.weight_decay >= 0 and math.isfinite(self.weight_decay)):
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay!r}")
        if self.decay == "multiplicative" and self.weight_decay >= 1:
            raise ValueError(f"multiplicative decay needs weight_decay < 1, got {self.weight_decay!r}")
        if not (self.input_scale > 0 and math.isfinite(self.input_scale)):
            raise ValueError(f"input_scale must be positive and finite, got {self.input_scale!r}")
        if not 0 <= self.label_noise < 0.5:
            raise ValueError(f"label_noise must lie in [0, 1/2), got {self.label_noise!r}")
        if self.mode == "offline":
            if self.n_train is None or self.n_train < 1:
                raise ValueError(f"offline mode needs n_train (sample size m) >= 1, got {self.n_train!r}")
        elif self.n_train is not None:
            raise ValueError("n_train is only used in offline mode (online draws fresh batches)")
        if self.train_accuracy and self.mode != "offline":
            raise ValueError("train_accuracy needs offline mode (online training has no finite training sample)")
        if self.n_val is not None and self.n_val < 1:
            raise ValueError(f"n_val must be None or >= 1, got {self.n_val!r}")
        if self.target_error is not None and not 0 <= self.target_error < 1:
            raise ValueError(f"target_error must lie in [0, 1), got {self.target_error!r}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds) or min(self.seeds) < 0:
            raise ValueError(f"seeds must be a non-empty tuple of distinct non-negative integers, got {self.seeds!r}")
        if self.fourier_gap:
            if self.arch != "mlp" or self.width != 1:
                raise ValueError("fourier_gap needs a single neuron (arch='mlp', width=1)")
            if self.n > 20 or self.n == self.k:
                raise ValueError(f"fourier_gap needs k < n <= 20 (exact transform over the cube), got n = {self.n}")
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")
        if self.num_threads is not None and self.num_threads < 1:
            raise ValueError(f"num_threads must be None or >= 1, got {self.num_threads!r}")

    @property
    def n_eval(self) -> int:
        """Validation/test set size actually used."""
        if self.n_val is not None:
            return self.n_val
        return 8192 if self.mode == "online" else 10_000

    @property
    def error_target(self) -> float:
        """Validation error at or below which a seed counts as converged."""
        if self.target_error is not None:
            return self.target_error
        return 0.0 if self.mode == "online" else 0.1

    @property
    def stream_seeds(self) -> tuple[int, ...]:
        """The seed of each member's data stream: ``data_seeds``, or ``seeds`` when it is None."""
        return self.seeds if self.data_seeds is None else self.data_seeds

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict (``data_seeds`` and ``train_accuracy`` only when set, so a default
        configuration's dict, and the checkpoints bound to it, are those of before the fields existed)."""
        return {
            f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
            for f in dataclasses.fields(self)
            if not (f.name in OPTIONAL_FIELDS and getattr(self, f.name) == OPTIONAL_FIELDS[f.name])
        }

    def replace(self, **changes: Any) -> SparseParityConfig:
        return dataclasses.replace(self, **changes)


@dataclass
class SparseParityResult:
    """Outcome of :func:`train_parity`; arrays are numpy, seeds along the last axis.

    Attributes
    ----------
    steps : (T,) int      evaluated steps.
    accuracy, loss : (T, E)  validation accuracy and loss (the training loss function).
    rho : (T, E)          ‖W_t - W_0‖_∞.
    delta_in, delta_out : (T, E)  mean |ΔW| over coordinates in S / not in S.
    fourier_gap : (T, E) or None
    t_c : (E,) float      first evaluated step with error <= target; inf if never.
    diverged : (E,) bool
    steps_run : int       updates performed before the run stopped.
    diverged_at : (E,) float  evaluated step at which a seed was first seen non-finite; inf if never.
    train_accuracy : (T, E) or None  accuracy on each seed's own training sample (``config.train_accuracy``).
    device, dtype : str   the device and the training dtype that ran (``tf32``: float32 storage, TF32 products).
    """

    config: SparseParityConfig
    steps: np.ndarray
    accuracy: np.ndarray
    loss: np.ndarray
    rho: np.ndarray
    delta_in: np.ndarray
    delta_out: np.ndarray
    t_c: np.ndarray
    diverged: np.ndarray
    steps_run: int
    wall_time: float
    device: str
    dtype: str
    fourier_gap: np.ndarray | None = None
    params: dict[str, np.ndarray] | None = field(default=None, repr=False)
    diverged_at: np.ndarray | None = None
    train_accuracy: np.ndarray | None = None

    def divergence(self) -> str | None:
        """ "training diverged at step N ..." when every seed diverged (:func:`divergence_reason`), else None."""
        if self.diverged_at is None:
            return None
        return divergence_reason(self.diverged_at, self.config.eval_every)

    @property
    def seeds(self) -> tuple[int, ...]:
        return self.config.seeds

    @property
    def success(self) -> np.ndarray:
        """(E,) bool: converged within the budget."""
        return np.isfinite(self.t_c)

    @property
    def ratio(self) -> np.ndarray:
        """(T, E) delta_in / delta_out (S versus non-S weight movement)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.delta_in / self.delta_out

    def median_tc(self) -> float:
        """Median t_c over seeds (inf if at least half did not converge)."""
        return float(np.median(self.t_c))

    def index_at(self, step: float) -> np.ndarray:
        """Index of the last evaluation at or before ``step`` (vectorised over an array of steps)."""
        idx = np.searchsorted(self.steps, np.asarray(step, dtype=np.float64), side="right") - 1
        return np.clip(idx, 0, len(self.steps) - 1)

    def at_step(self, name: str, step_per_seed: np.ndarray) -> np.ndarray:
        """A (T, E) measure read per seed at the last evaluation at or before ``step_per_seed[e]``."""
        arr = self.ratio if name == "ratio" else getattr(self, name)
        idx = self.index_at(step_per_seed)
        return arr[idx, np.arange(arr.shape[1])]

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-ready summary: non-finite values (t_c of unconverged seeds, NaN ratios) become None;
        no parameters."""

        def lst(a: np.ndarray | None) -> Any:
            return None if a is None else np.where(np.isfinite(a), a.astype(object), None).tolist()

        return {
            "config": self.config.to_dict(),
            "seeds": list(self.seeds),
            "steps": self.steps.tolist(),
            "accuracy": lst(self.accuracy),
            "loss": lst(self.loss),
            "rho": lst(self.rho),
            "delta_in": lst(self.delta_in),
            "delta_out": lst(self.delta_out),
            "fourier_gap": lst(self.fourier_gap),
            "t_c": [float(t) if math.isfinite(t) else None for t in self.t_c],
            "diverged": self.diverged.tolist(),
            "diverged_at": None if self.diverged_at is None else lst(self.diverged_at),
            "steps_run": self.steps_run,
            "wall_time": self.wall_time,
            "device": self.device,
            "dtype": self.dtype,
        } | ({} if self.train_accuracy is None else {"train_accuracy": lst(self.train_accuracy)})


# --------------------------------------------------------------------------------------------------- pieces


def parity_labels(x: torch.Tensor, k: int) -> torch.Tensor:
    """χ_[k](x) = ∏_{i<k} x_i along the last axis (x with ±1 entries)."""
    return x[..., :k].prod(dim=-1)


def _oscillating_coefficients(k: int) -> list[float]:
    z = sympy.Symbol("z")
    return [float(c) for c in sympy.Poly(oscillating_polynomial(k, z), z).all_coeffs()]  # highest degree first


def activation_fn(name: str, k: int, input_scale: float = 1.0) -> Callable[[torch.Tensor], torch.Tensor]:
    """σ(c z) for the named activation (module docstring); each interpolates σ(k-2j) = (-1)^j except relu."""
    if name not in ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}; expected one of {ACTIVATIONS}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if name == "relu":
        base: Callable[[torch.Tensor], torch.Tensor] = torch.relu
    elif name == "power":

        def base(z: torch.Tensor) -> torch.Tensor:
            return z.pow(k)
    elif name == "sinusoid":

        def base(z: torch.Tensor) -> torch.Tensor:
            return torch.cos(math.pi * (z - k) / 2)
    elif name == "zigzag":

        def base(z: torch.Tensor) -> torch.Tensor:
            t = (k - z.clamp(-k, k)) / 2  # in [0, k]; node j at t = j
            j = torch.floor(t).clamp(max=k - 1)
            sign = 1 - 2 * torch.remainder(j, 2)
            return sign * (1 - 2 * (t - j))
    else:
        coeffs = _oscillating_coefficients(k)

        def base(z: torch.Tensor) -> torch.Tensor:
            out = torch.full_like(z, coeffs[0])
            for c in coeffs[1:]:
                out = out * z + c
            return out

    if input_scale == 1.0:
        return base
    return lambda z: base(input_scale * z)


def loss_fn(name: str, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-sample loss (App. B.4.1): hinge (1-yŷ)_+, square (y-ŷ)², logistic log(1+e^{-yŷ})."""
    if name == "hinge":
        return torch.relu(1 - y * out)
    if name == "square":
        return (y - out) ** 2
    if name == "logistic":
        return torch.nn.functional.softplus(-y * out)
    raise ValueError(f"unknown loss {name!r}; expected one of {LOSSES}")


def _seed_generator(seed: int, stream: int, device: torch.device) -> torch.Generator:
    state = int(np.random.SeedSequence([seed, stream]).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
    g = torch.Generator(device=device)
    g.manual_seed(state)
    return g


def _uniform(shape: tuple[int, ...], bound: float, g: torch.Generator) -> torch.Tensor:
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * bound


def _weight(shape: tuple[int, ...], fan_in: int, fan_out: int, init: str, g: torch.Generator) -> torch.Tensor:
    xavier = math.sqrt(6.0 / (fan_in + fan_out))
    if init == "xavier":
        return _uniform(shape, xavier, g)
    if init == "kaiming":
        return torch.randn(shape, generator=g, dtype=torch.float64) * math.sqrt(2.0 / fan_in)
    if init == "sign":
        return (torch.randint(0, 2, shape, generator=g).to(torch.float64) * 2 - 1) * xavier
    if init == "default":
        return _uniform(shape, 1 / math.sqrt(fan_in), g)
    raise ValueError(f"unknown init {init!r}; expected one of {INITS}")


def init_params(config: SparseParityConfig, seed: int) -> dict[str, torch.Tensor]:
    """Initial parameters of one seed (float64, CPU), from that seed's own generator only."""
    g = torch.Generator().manual_seed(int(np.random.SeedSequence([seed, 0]).generate_state(1)[0]))
    n = config.n
    if config.arch == "polynet":
        rows, fan_out = config.k, 1
    else:
        rows, fan_out = config.width, config.width
    if config.init == "sparse":
        W = torch.zeros(rows, n, dtype=torch.float64)
        for j in range(rows):
            cols = torch.randperm(n, generator=g)[: config.sparsity]
            W[j, cols] = _uniform((config.sparsity,), 1.0, g)
    else:
        W = _weight((rows, n), n, fan_out, config.init, g)
    b = _uniform((rows,), 1 / math.sqrt(n), g)
    params = {"W": W, "b": b}
    if config.arch == "mlp" and config.second_layer:
        u_init = "default" if config.init == "sparse" else config.init
        params["u"] = _weight((config.width,), config.width, 1, u_init, g)
    return params


def forward(
    config: SparseParityConfig,
    params: dict[str, torch.Tensor],
    x: torch.Tensor,
    act: Callable[[torch.Tensor], torch.Tensor],
) -> torch.Tensor:
    """Outputs (E, P) of the ensemble on inputs x of shape (E, P, n) (per-seed) or (P, n) (shared)."""
    W, b = params["W"], params["b"]
    pre = torch.einsum("pn,ern->epr", x, W) if x.dim() == 2 else torch.bmm(x, W.transpose(1, 2))
    pre = pre + b[:, None, :]
    if config.arch == "polynet":
        return pre.prod(dim=-1)
    h = act(pre)
    if "u" in params:
        return torch.bmm(h, params["u"][:, :, None])[..., 0]
    return h.sum(dim=-1)


# --------------------------------------------------------------------------------------------------- data


class _DataStream:
    """Per-seed mini-batches (E, B, n) and labels (E, B), generated chunk-wise from per-seed generators."""

    def __init__(self, config: SparseParityConfig, device: torch.device, dtype: torch.dtype) -> None:
        self.c, self.device, self.dtype = config, device, dtype
        self.gens = [_seed_generator(s, 1, device) for s in config.stream_seeds]
        B, n = config.batch_size, config.n
        self.chunk = max(1, DATA_CHUNK_ELEMENTS // (B * n))
        self.pos = self.chunk  # forces a refill
        self.xs: torch.Tensor | None = None
        self.ys: torch.Tensor | None = None
        self.at_refill: list[torch.Tensor] | None = None  # generator states before the last refill (checkpoints)
        self.leftover_at_refill: list[torch.Tensor] = []
        if config.mode == "offline":
            m = int(config.n_train)
            xt, yt = [], []
            for g in self.gens:
                x = self._bits((m, n), g)
                xt.append(x)
                yt.append(self._train_labels(x, g))
            self.x_train = torch.stack(xt)  # (E, m, n)
            self.y_train = torch.stack(yt)  # (E, m)
            self.leftover = [torch.empty(0, dtype=torch.long, device=device) for _ in self.gens]

    def _bits(self, shape: tuple[int, ...], g: torch.Generator, out: torch.Tensor | None = None) -> torch.Tensor:
        """±1 entries as int8 (converted to the training dtype per batch), drawn on the device (into ``out``)."""
        if out is None:
            out = torch.empty(shape, device=self.device, dtype=torch.int8)
        torch.randint(0, 2, shape, generator=g, device=self.device, dtype=torch.int8, out=out)
        return out.mul_(-2).add_(1)

    def _train_labels(self, x: torch.Tensor, g: torch.Generator, out: torch.Tensor | None = None) -> torch.Tensor:
        c = self.c
        if c.random_labels:
            return self._bits(x.shape[:-1], g, out)
        y = parity_labels(x, c.k)
        if c.label_noise > 0:
            flip = torch.rand(x.shape[:-1], generator=g, device=self.device) < c.label_noise
            y = torch.where(flip, -y, y)
        if out is None:
            return y
        return out.copy_(y)

    def _refill(self) -> None:
        c, B = self.c, self.c.batch_size
        self.at_refill = generator_states(self.gens)
        if c.mode == "offline":
            self.leftover_at_refill = list(self.leftover)
        if c.mode == "online":
            # Each seed draws straight into its slice of a device buffer kept across refills (no host
            # round trip, no stacking copy); the values are those of drawing per seed and stacking.
            E = len(self.gens)
            if self.xs is None or self.xs.shape[0] != E or self.ys is None:
                self.xs = torch.empty((E, self.chunk, B, c.n), device=self.device, dtype=torch.int8)
                self.ys = torch.empty((E, self.chunk, B), device=self.device, dtype=torch.int8)
            for e, g in enumerate(self.gens):
                self._train_labels(self._bits((self.chunk, B, c.n), g, self.xs[e]), g, self.ys[e])
        else:
            need, m, idx = self.chunk * B, int(c.n_train), []
            for e, g in enumerate(self.gens):
                parts, have = [self.leftover[e]], self.leftover[e].numel()
                while have < need:
                    parts.append(torch.randperm(m, generator=g, device=self.device))
                    have += m
                stream = torch.cat(parts)
                idx.append(stream[:need])
                self.leftover[e] = stream[need:]
            self.xs = torch.stack(idx).view(len(self.gens), self.chunk, B)  # indices into the training sample
        self.pos = 0

    def keep(self, idx: torch.Tensor) -> None:
        """Drop every seed not in ``idx`` (positions); the kept seeds' streams continue unchanged."""
        pos = idx.tolist()
        self.gens = [self.gens[i] for i in pos]
        if self.at_refill is not None:
            self.at_refill = [self.at_refill[i] for i in pos]
        if self.xs is not None:
            self.xs = self.xs[idx]
        if self.ys is not None:
            self.ys = self.ys[idx]
        if self.c.mode == "offline":
            self.x_train, self.y_train = self.x_train[idx], self.y_train[idx]
            self.leftover = [self.leftover[i] for i in pos]
            if self.leftover_at_refill:
                self.leftover_at_refill = [self.leftover_at_refill[i] for i in pos]

    def state(self) -> dict[str, Any]:
        """Where the streams are, for a checkpoint: the generator states (and offline index leftovers) before the
        last refill and the position in it; :meth:`restore` redraws that refill, so no batch buffer is saved."""
        refilled = self.at_refill is not None
        return {
            "generators": self.at_refill if refilled else generator_states(self.gens),
            "leftover": [t.cpu() for t in (self.leftover_at_refill if refilled else getattr(self, "leftover", []))],
            "refilled": refilled,
            "pos": self.pos,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Continue the streams from :meth:`state` (call after :meth:`keep` has dropped the same seeds)."""
        set_generator_states(self.gens, state["generators"])
        if self.c.mode == "offline":
            self.leftover = [t.to(self.device) for t in state["leftover"]]
        if state["refilled"]:
            self._refill()
        self.pos = int(state["pos"])

    def next(self) -> tuple[torch.Tensor, torch.Tensor]:
        if self.pos >= self.chunk:
            self._refill()
        i = self.pos
        self.pos += 1
        assert self.xs is not None
        if self.c.mode == "online":
            assert self.ys is not None
            return self.xs[:, i].to(self.dtype), self.ys[:, i].to(self.dtype)
        idx = self.xs[:, i]  # (E, B)
        x = torch.gather(self.x_train, 1, idx[:, :, None].expand(-1, -1, self.c.n))
        y = torch.gather(self.y_train, 1, idx)
        return x.to(self.dtype), y.to(self.dtype)


def memory_estimate(config: SparseParityConfig, itemsize: int = 4) -> int:
    """Estimated peak bytes of :func:`train_parity` on its device (``itemsize`` = bytes per float of the dtype).

    Counts the data stream (online: one refill of ``DATA_CHUNK_ELEMENTS`` int8 inputs per seed plus labels;
    offline: the int8 training samples and an int64 index refill), the per-step float batch and activations
    (E B r, four buffers), the parameters (five copies: weights, gradients, update temporaries, W_0, final), the
    validation set and one evaluation chunk (three buffers of ``EVAL_CHUNK_ELEMENTS``).
    """
    c = config
    E, B, n = len(c.seeds), c.batch_size, c.n
    rows = c.k if c.arch == "polynet" else c.width
    chunk = max(1, DATA_CHUNK_ELEMENTS // (B * n))
    data = E * chunk * B * (n + 1) if c.mode == "online" else E * int(c.n_train) * (n + 8) + E * chunk * B * 8
    batch = E * B * (n + 1) * itemsize + 4 * E * B * rows * itemsize
    params = 5 * E * rows * (n + 2) * itemsize
    validation = c.n_eval * (n + 1) * itemsize
    evaluation = 3 * min(EVAL_CHUNK_ELEMENTS, E * c.n_eval * rows) * itemsize
    return int(data + batch + params + validation + evaluation)


def _validation_set(
    config: SparseParityConfig, device: torch.device, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(config.val_seed)
    x = (1 - 2 * torch.randint(0, 2, (config.n_eval, config.n), generator=g)).to(dtype).to(device)
    return x, parity_labels(x, config.k)


# --------------------------------------------------------------------------------------------------- training


def _population_gaps(
    config: SparseParityConfig, params: dict[str, torch.Tensor], act: Callable[[torch.Tensor], torch.Tensor]
) -> np.ndarray:
    """Relaxed Γ (App. B.3.1) of the population correlation-loss gradient of σ(w·x + b), per seed."""

    def sigma_prime(z: np.ndarray) -> np.ndarray:
        t = torch.tensor(z, dtype=torch.float64, requires_grad=True)
        act(t).sum().backward()
        assert t.grad is not None
        return t.grad.numpy()

    W = params["W"].detach().double().cpu().numpy()[:, 0, :]
    b = params["b"].detach().double().cpu().numpy()[:, 0]
    S = tuple(range(config.k))
    out = []
    for e in range(W.shape[0]):
        g, _ = population_gradient(sigma_prime, W[e], float(b[e]), S)
        out.append(fourier_gap_from_gradient(g, S, relaxed=True))
    return np.array(out)


@torch.no_grad()
def _evaluate(
    config: SparseParityConfig, params: dict[str, torch.Tensor], act: Callable, xv: torch.Tensor, yv: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    E = params["W"].shape[0]
    rows = params["W"].shape[1]
    chunk = max(1, EVAL_CHUNK_ELEMENTS // (E * rows))
    correct = torch.zeros(E, dtype=torch.float64, device=xv.device)
    loss = torch.zeros(E, dtype=torch.float64, device=xv.device)
    for s in range(0, xv.shape[0], chunk):
        out = forward(config, params, xv[s : s + chunk], act)  # (E, P)
        y = yv[s : s + chunk]
        correct += (torch.sign(out) == y).sum(dim=1).double()
        loss += loss_fn(config.loss, out, y).sum(dim=1).double()
    return correct / xv.shape[0], loss / xv.shape[0]


@torch.no_grad()
def _train_accuracy(
    config: SparseParityConfig, params: dict[str, torch.Tensor], act: Callable, x: torch.Tensor, y: torch.Tensor
) -> np.ndarray:
    """Per seed, the accuracy (sign(f) = y, f = 0 an error) on its own training sample: x (E, m, n) int8, y (E, m)."""
    E, m = x.shape[0], x.shape[1]
    dtype = params["W"].dtype
    chunk = max(1, EVAL_CHUNK_ELEMENTS // (E * params["W"].shape[1]))
    correct = torch.zeros(E, dtype=torch.float64, device=x.device)
    for s in range(0, m, chunk):
        out = forward(config, params, x[:, s : s + chunk].to(dtype), act)  # (E, P)
        correct += (torch.sign(out) == y[:, s : s + chunk].to(dtype)).sum(dim=1).double()
    return (correct / m).cpu().numpy()


class _ProbeTimeout(Exception):
    """Raised from a probe's evaluation callback once its time is up (:func:`probe_parity_step`)."""


def probe_parity_step(
    config: SparseParityConfig, device: str = "cpu", steps: int = 5, seconds: float | None = None
) -> float | None:
    """Seconds per update of :func:`train_parity` at ``config``'s shapes on ``device``, as the machine is loaded now
    (the plan's probe of a grid cell, :mod:`verify.sweep.cost`), its evaluations included; None where the probe ran
    past ``seconds`` of wall time (checked at each of its evaluations, every ``steps`` updates).

    One run of the real trainer for ``3 steps`` updates of every seed, evaluated every ``steps`` updates on at most
    256 validation points and without the training accuracy or the Fourier gap (the updates are the same; no early
    stop, no checkpoint), its data stream drawing ``3 steps`` updates' batches a refill instead of the
    ``DATA_CHUNK_ELEMENTS`` inputs per seed of a run (other bits, the same shapes and kernels; a whole chunk took
    12 s of a 50 s plan): the wall time ``t_small`` from the evaluation after ``steps`` updates to the one after
    ``3 steps`` (the set-up and the first updates' warm-up left out), over ``2 steps``, is the update (its two small
    evaluations counted in). Where ``config`` evaluates more (``n_val`` above 256, the training accuracy, the Fourier
    gap), a second run with its own evaluation gives ``t_full``, and ``(t_full - t_small)/2`` (at least 0: the
    machine's noise) per evaluation is added, spread over the ``eval_every`` updates between two evaluations."""
    start = time.perf_counter()
    probe = dataclasses.replace(
        config,
        steps=3 * steps,
        eval_every=steps,
        stop_when_converged=False,
        n_val=min(config.n_val or 256, 256),
        train_accuracy=False,
        fourier_gap=False,
    )

    def mark(marks: dict[int, float], step: int) -> None:
        marks.setdefault(step, time.perf_counter())
        if seconds is not None and marks[step] - start > seconds:
            raise _ProbeTimeout

    def window(cfg: SparseParityConfig) -> float:
        marks: dict[int, float] = {}
        _run_parity(cfg, RunOptions(device=device), lambda step, _: mark(marks, step), data_chunk=3 * steps)
        return marks[3 * steps] - marks[steps]

    try:
        t_small = window(probe)
        per_update = t_small / (2 * steps)
        full = dataclasses.replace(
            probe, n_val=config.n_val, train_accuracy=config.train_accuracy, fourier_gap=config.fourier_gap
        )
        if full != probe:
            per_update += max(0.0, window(full) - t_small) / 2 / config.eval_every
    except _ProbeTimeout:
        return None
    return per_update


def train_parity(
    config: SparseParityConfig,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    callback: Callable[[int, dict[str, np.ndarray]], None] | None = None,
) -> SparseParityResult:
    """Train the ensemble of ``config.seeds`` with SGD on the (n,k)-sparse parity (module docstring).

    ``callback(step, metrics)`` is called after every evaluation with the per-seed numpy metrics. ``options``
    (:class:`verify.runtime.options.RunOptions`): device, dtype (default ``config.dtype``, float32), the seed offset
    (shifts ``config.seeds`` and ``config.data_seeds``: models and data streams; the validation set stays), progress, the memory-check
    override.

    With a checkpoint file the run saves its whole state (parameters, W_0, the per-seed data generators, the
    frozen/compacted ensemble, the history) every ``options.checkpoint_every`` steps, every ``CHECKPOINT_SECONDS``
    of wall time, at the end and on Ctrl-C, and resumes from a matching checkpoint of that path, ending with the
    numbers of an uninterrupted run (:class:`verify.runtime.checkpoint.Checkpoint`: binding, trust, corrupt files;
    only ``steps`` and ``num_threads`` may differ from the checkpoint's config).
    """
    return _run_parity(config, options, callback)


def _run_parity(
    config: SparseParityConfig,
    options: RunOptions,
    callback: Callable[[int, dict[str, np.ndarray]], None] | None,
    data_chunk: int | None = None,
) -> SparseParityResult:
    """:func:`train_parity`; ``data_chunk`` caps the updates' batches drawn a refill (:func:`probe_parity_step`: a
    different data stream, so never in a run that reports)."""
    config, setting = options.configure(config, "sparse-parity", seed_fields=("seeds", "data_seeds"))
    ckpt = Checkpoint.for_run(
        options, setting, "sparse_parity", config.to_dict(), config.steps, resumable=RESUMABLE_FIELDS
    )
    with torch_threads(config.num_threads), setting.precision():
        training = _ParityTraining(config, setting, options, ckpt, callback)
        if data_chunk is not None:
            training.data.chunk = min(training.data.chunk, max(1, data_chunk))
        return training.run()


class _ParityTraining:
    """One :func:`train_parity` run (:func:`verify.runtime.loop.run_loop` with the hooks below). Seeds that are
    frozen (converged with ``stop_when_converged``, or diverged) are first masked out of the updates and, once at
    least 1/8 of the computed seeds are frozen, removed from the computation altogether (their last recorded metrics
    are carried forward); neither changes any seed's trajectory."""

    def __init__(
        self,
        config: SparseParityConfig,
        setting: RunSetting,
        options: RunOptions,
        ckpt: Checkpoint | None,
        callback: Callable[[int, dict[str, np.ndarray]], None] | None,
    ) -> None:
        self.t0 = time.perf_counter()
        c = self.c = config
        self.options, self.ckpt, self.callback, self.setting = options, ckpt, callback, setting
        self.device, self.dtype = device, dtype = setting.device, setting.dtype
        E = self.E = len(c.seeds)
        self.need = memory_estimate(c, torch.tensor([], dtype=dtype).element_size())
        check_free_memory(
            self.need,
            device,
            f"sparse-parity training of {E} seeds (width {c.width}, n = {c.n}, batch {c.batch_size}, {c.n_eval} "
            "validation points)",
            f"train fewer seeds per call or fewer validation points, {OVERRIDE_HINT}",
            options.ignore_memory_check,
        )
        self.act = activation_fn(c.activation, c.k, c.input_scale)
        self.params = stack_seeds(c.seeds, partial(init_params, c), device=device, dtype=dtype)
        for p in self.params.values():
            p.requires_grad_(True)
        self.final = (
            {name: torch.empty_like(p, requires_grad=False) for name, p in self.params.items()} if c.keep_params else {}
        )
        self.W0 = self.params["W"].detach().clone()
        self.xv, self.yv = _validation_set(c, device, dtype)
        self.data = _DataStream(c, device, dtype)
        self.in_S = torch.zeros(c.n, dtype=torch.bool, device=device)
        self.in_S[: c.k] = True
        self.alive = np.arange(E)  # positions (in c.seeds) of the seeds still in the computation
        self.active = torch.ones(E, dtype=torch.bool, device=device)  # over alive: still updated
        self.t_c = np.full(E, np.inf)
        self.diverged = np.zeros(E, dtype=bool)
        self.diverged_at = np.full(E, np.inf)
        self.frozen = np.zeros(E, dtype=bool)
        # per seed, for checkpoints
        self.per_seed = {
            "t_c": self.t_c,
            "diverged": self.diverged,
            "diverged_at": self.diverged_at,
            "frozen": self.frozen,
        }
        self.keys = (
            ("accuracy", "loss", "rho", "delta_in", "delta_out")
            + (("gap",) if c.fourier_gap else ())
            + (("train_accuracy",) if c.train_accuracy else ())
        )
        self.last = {key: np.full(E, np.nan) for key in self.keys}
        self.hist: dict[str, list[np.ndarray]] = {key: [] for key in self.keys}
        self.steps: list[int] = []
        self.start = 0
        self.estimate = RunEstimate(
            c.steps,
            E,
            f"sparse-parity n={c.n} k={c.k} on {device}",
            need=self.need,
            probe_steps=PROBE_STEPS,
            eval_every=c.eval_every,
        )

    def record(self, step: int) -> None:
        """Evaluate every seed still computed, update convergence and divergence, append to the history."""
        c, alive, last = self.c, self.alive, self.last
        acc, loss = _evaluate(c, self.params, self.act, self.xv, self.yv)
        with torch.no_grad():
            finite = torch.stack([torch.isfinite(p).flatten(1).all(dim=1) for p in self.params.values()]).all(dim=0)
            d = (self.params["W"].detach() - self.W0).abs()
            rho = d.flatten(1).amax(dim=1)
            din = d[:, :, self.in_S].flatten(1).mean(dim=1)
            dout = d[:, :, ~self.in_S].flatten(1).mean(dim=1) if c.k < c.n else torch.full_like(din, float("nan"))
        vals = {"accuracy": acc, "loss": loss, "rho": rho, "delta_in": din, "delta_out": dout}
        for key, v in vals.items():
            last[key][alive] = v.double().cpu().numpy()
        if c.fourier_gap:
            last["gap"][alive] = _population_gaps(c, self.params, self.act)
        if c.train_accuracy:
            last["train_accuracy"][alive] = _train_accuracy(
                c, self.params, self.act, self.data.x_train, self.data.y_train
            )
        fin = finite.cpu().numpy()
        self.diverged[alive[~fin]] = True
        self.diverged_at[alive[~fin]] = np.minimum(self.diverged_at[alive[~fin]], step)
        newly = alive[(1 - last["accuracy"][alive] <= c.error_target + 1e-12) & fin & ~np.isfinite(self.t_c[alive])]
        self.t_c[newly] = step
        self.frozen[:] = self.diverged | (np.isfinite(self.t_c) & c.stop_when_converged)
        self.active.copy_(torch.as_tensor(~self.frozen[alive], device=self.device))
        self.steps.append(step)
        for key in self.keys:
            self.hist[key].append(last[key].copy())
        if self.callback is not None:
            self.callback(step, {key: last[key].copy() for key in self.keys})

    def compact(self) -> None:
        """Remove the frozen seeds from the computation once they are at least 1/8 of it."""
        keep = ~self.frozen[self.alive]
        n_frozen = int((~keep).sum())
        if n_frozen == 0 or n_frozen < len(self.alive) / 8 or not keep.any():
            return
        idx = torch.as_tensor(np.flatnonzero(keep), device=self.device)
        gone = torch.as_tensor(np.flatnonzero(~keep), device=self.device)
        for name, p in self.params.items():
            if self.final:
                self.final[name][torch.as_tensor(self.alive[~keep], device=self.device)] = p.detach()[gone]
            self.params[name] = p.detach()[idx].clone().requires_grad_(True)
        self.W0 = self.W0[idx]
        self.data.keep(idx)
        self.alive = self.alive[keep]
        self.active = torch.ones(len(self.alive), dtype=torch.bool, device=self.device)

    def evaluate(self, step: int) -> None:
        if not (self.steps and self.steps[-1] == step):  # not the evaluation a resumed checkpoint already holds
            self.record(step)
        self.compact()

    def converged(self, step: int, rec: None) -> bool:
        return bool(self.frozen.all())

    def update(self, step: int) -> None:
        c, params = self.c, self.params
        if self.start == 0 and step >= 1:  # timed from update 1 (update 0 draws the first refill)
            self.estimate(step, torch.empty(0))
        x, y = self.data.next()
        out = forward(c, params, x, self.act)
        loss = loss_fn(c.loss, out, y).mean(dim=1).sum()  # sum over seeds of per-seed mean losses
        grads = torch.autograd.grad(loss, list(params.values()))
        with torch.no_grad():
            for p, g in zip(params.values(), grads):
                if c.decay == "pytorch":
                    new = p - c.lr * (g + c.weight_decay * p) if c.weight_decay else p - c.lr * g
                else:
                    new = (1 - c.weight_decay) * p - c.lr * g
                if self.frozen[self.alive].any():  # host flags, set at evaluations: no device sync
                    new = torch.where(self.active.view((len(self.alive),) + (1,) * (p.dim() - 1)), new, p)
                p.copy_(new)

    def postfix(self, rec: None) -> dict[str, str]:
        return {"converged": f"{int(np.isfinite(self.t_c).sum())}/{self.E}"}

    def save(self, step: int) -> None:
        assert self.ckpt is not None
        E = self.E
        self.ckpt.save(
            step,
            {
                "params": tensors_state(self.params),
                "final": tensors_state(self.final),
                "W0": self.W0.cpu(),
                "alive": torch.from_numpy(self.alive.copy()),
                "data": self.data.state(),
                "per_seed": {k: torch.from_numpy(v.copy()) for k, v in self.per_seed.items()},
                "last": {k: torch.from_numpy(v.copy()) for k, v in self.last.items()},
                "hist": {
                    k: torch.from_numpy(np.array(vs, dtype=np.float64).reshape(len(vs), E))
                    for k, vs in self.hist.items()
                },
                "steps": list(self.steps),
            },
        )

    def restore(self, state: dict[str, Any]) -> None:
        device, dtype = self.device, self.dtype
        for name, p in state["params"].items():
            self.params[name] = p.to(device=device, dtype=dtype).requires_grad_(True)
        with torch.no_grad():
            for name, p in state["final"].items():
                self.final[name].copy_(p)
        self.W0 = state["W0"].to(device=device, dtype=dtype)
        self.alive = state["alive"].numpy().copy()
        if len(self.alive) < self.E:
            self.data.keep(torch.as_tensor(self.alive, device=device))
        self.data.restore(state["data"])
        for key, value in state["per_seed"].items():
            self.per_seed[key][:] = value.numpy()
        for key, value in state["last"].items():
            self.last[key][:] = value.numpy()
        for key, values in state["hist"].items():
            self.hist[key] = [row.copy() for row in values.numpy()]
        self.steps[:] = [int(t) for t in state["steps"]]
        self.active = torch.as_tensor(~self.frozen[self.alive], device=device)
        self.compact()  # a checkpoint written between an evaluation and its compaction (an interrupt in callback)

    def check_saved(self, state: Mapping[str, Any]) -> None:
        """Raise :class:`verify.runtime.checkpoint.NotACheckpointError` unless a checkpoint's ``state`` fits this run
        (:meth:`restore` would otherwise fail half-way, or broadcast a tensor of another shape into the weights): its
        parts, the shapes of ``final``, every parameter with one row per seed still training (``alive``, the seeds
        of this run), their data generators' states (a checkpoint of a run on another kind of device has states of
        another size: :func:`verify.runtime.checkpoint.check_generator_states`), and a row per seed in the per-seed
        records."""
        check_saved_tensors(state, {}, ("params", "final", "W0", "alive", "data", "per_seed", "last", "hist", "steps"))
        check_saved_tensors(state["final"], self.final)
        alive = np.asarray(state["alive"])
        if alive.ndim != 1 or not 1 <= len(alive) <= self.E or alive.min() < 0 or alive.max() >= self.E:
            raise NotACheckpointError(f"its saved seeds in training {alive.tolist()[:8]} do not fit {self.E} seeds")
        check_saved_tensors(state["params"], {name: (len(alive), *p.shape[1:]) for name, p in self.params.items()})
        check_generator_states([self.data.gens[i] for i in alive], state["data"]["generators"])
        if set(state["params"]) != set(self.params):
            raise NotACheckpointError(f"its saved parameters {sorted(state['params'])} are not {sorted(self.params)}")
        for part, mine in (("per_seed", self.per_seed), ("last", self.last)):
            for key, value in state[part].items():
                if key not in mine or len(value) != self.E:
                    raise NotACheckpointError(
                        f"its saved {part}[{key!r}] is not a record of {self.E} seeds of this run"
                    )

    def run(self) -> SparseParityResult:
        """Train (resuming from the checkpoint when there is one) and return the result."""
        c = self.c
        state = None if self.ckpt is None else self.ckpt.load(fits=self.check_saved)
        if state is not None:
            assert self.ckpt is not None
            self.restore(state)
            self.start = int(state["step"])
            self.ckpt.resumed(self.start)
        end = run_loop(
            self.update,
            c.steps,
            evaluate=self.evaluate,
            eval_every=c.eval_every,
            stop=self.converged,
            resumption=Resumption(
                start=self.start,
                save=None if self.ckpt is None else self.save,
                checkpoint_every=self.options.checkpoint_every,
                checkpoint_seconds=CHECKPOINT_SECONDS,
                resumed=state is not None,
            ),
            bar=Bar(enabled=self.options.progress, desc=f"parity n={c.n} k={c.k} E={self.E}", postfix=self.postfix),
        )
        reason = divergence_reason(self.diverged_at, c.eval_every)
        if reason is not None:
            print(f"sparse-parity n={c.n} k={c.k}: {reason}", file=sys.stderr, flush=True)
        return self.result(end.step)

    def result(self, step: int) -> SparseParityResult:
        """The result after ``step`` updates."""
        c, E = self.c, self.E
        kept = None
        if c.keep_params:
            idx = torch.as_tensor(self.alive, device=self.device)
            for name, p in self.params.items():
                self.final[name][idx] = p.detach()
            kept = {name: p.cpu().numpy() for name, p in self.final.items()}

        def arr(key: str) -> np.ndarray:
            return np.array(self.hist[key], dtype=np.float64).reshape(len(self.steps), E)

        return SparseParityResult(
            config=c,
            steps=np.array(self.steps, dtype=np.int64),
            accuracy=arr("accuracy"),
            loss=arr("loss"),
            rho=arr("rho"),
            delta_in=arr("delta_in"),
            delta_out=arr("delta_out"),
            t_c=self.t_c,
            diverged=self.diverged,
            steps_run=step,
            wall_time=time.perf_counter() - self.t0,
            device=str(self.device),
            dtype=self.setting.dtype_name,
            fourier_gap=arr("gap") if c.fourier_gap else None,
            params=kept,
            diverged_at=self.diverged_at,
            train_accuracy=arr("train_accuracy") if c.train_accuracy else None,
        )


def divergence_reason(diverged_at: np.ndarray, eval_every: int) -> str | None:
    """The reason to give when every seed diverged, else None.

    ``diverged_at[e]`` is the evaluated step at which seed e's parameters were first seen non-finite (inf: never).
    Returns "training diverged at step N: the parameters of all E seeds became NaN/inf ..." (a range of steps
    when the seeds diverged at different evaluations), so a run that blew up is not reported as "0/E seeds
    converged".
    """
    d = np.asarray(diverged_at, dtype=np.float64)
    if d.size == 0 or not np.isfinite(d).all():
        return None
    first, last = int(d.min()), int(d.max())
    where = f"at step {first}" if first == last else f"at steps {first}-{last}"
    return (
        f"training diverged {where}: the parameters of all {d.size} seeds became NaN/inf (checked at the "
        f"evaluations, every {eval_every} steps); lower lr or the initialisation scale"
    )
