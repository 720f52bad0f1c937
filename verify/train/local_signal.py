r"""SGD on the one-filter CNN of Karp thesis Ch. 3 (Alg. 3.1, Fig. 3.3), many seeds at once, by two simulators
(``docs/local_signal.md``):

* ``direct``: the literal d-dimensional model. Every step draws a fresh batch of inputs with k noise rows
  ``N(0, sigma^2 I_d)`` and the signal row ``y w_*`` (``w_* = 1/sqrt(d)`` in every entry, as in the authors' code),
  computes ``f_{w,b}(X) = sum_i [ReLU(<w, X_i> + b) - ReLU(-<w, X_i> + b)]`` and the logistic loss, and takes the
  gradient by torch autograd.
* ``reduced``: the exact reduction of App. B.1.1 in the state ``(c, v, b)``, ``c = <w, w_*>``,
  ``v = ||w - c w_*||``. A noise row enters f only through ``z = <w, eps> ~ N(0, sigma^2 (c^2 + v^2))``, and
  ``eps = (z / |w|^2) w + P_perp eps`` with ``P_perp eps`` independent of z, so the batch gradient is

  ``g_w = (1/B) [ (sum dz z / |w|^2) w + sigma sqrt(sum dz^2) P_perp xi + (sum_n l'_n phi_b'(y_n c) y_n) w_* ]``,

  ``dz = l'_n phi_b'(z)``, ``l' = -y sigma(-y f)``, ``xi ~ N(0, I_d)``: exact in distribution for fresh batches.
  Writing ``P_perp xi`` in the basis (w_*, w_perp/v, rest) only needs two normals and a chi-square with d - 2
  degrees of freedom, so a step costs ``B k`` normals instead of ``B k d`` and the filter is never stored.

Both use the thesis's rates ``eta_b = eta_w / k`` (Sec. 3.3), ``b = 0`` and ``w`` of norm ``init_norm`` in a
uniformly random direction at the start (the code's 1e-6), and evaluate the test accuracy ``mean(y f > 0)`` on
``n_test`` fresh inputs every ``eval_every`` steps (the reduced simulator samples the test projections, the direct
one full inputs). Every step runs through :func:`verify.runtime.loop.run_loop`.

Before the first update :func:`train_signal` compares :func:`memory_estimate` with the device's free memory
(:func:`verify.runtime.memory.preflight`: ``InsufficientMemoryError`` unless ``tvk --ignore-memory-check``); a run whose
first updates predict more than a minute prints its memory and time estimate on stderr.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import torch

from theory import local_signal as tl
from verify.runtime.checkpoint import Checkpoint, Evaluations, TrainerState, resume
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.jsonable import to_jsonable
from verify.runtime.loop import Bar, evaluation_count, run_loop, stack_seeds, torch_threads
from verify.runtime.memory import preflight, wall_seconds
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions, RunSetting

__all__ = [
    "PROBE_ATTEMPTS",
    "PROBE_MAX_PROJECTIONS",
    "SIMULATORS",
    "SignalProbe",
    "SignalRun",
    "SignalTrainConfig",
    "initial_state",
    "memory_estimate",
    "probe_signal_step",
    "train_signal",
]

SIMULATORS = ("reduced", "direct")
EVAL_CHUNK_ELEMENTS = 2_000_000  # the direct simulator evaluates in chunks of about this many input entries


REMEDY = "lower lr_w"  # what a diverged run should change


@dataclass(frozen=True)
class SignalTrainConfig:
    """One SGD run of Alg. 3.1 for every seed of ``seeds`` (validated on construction).

    Attributes
    ----------
    k, d : int
        Noise rows (k >= 2) and patch dimension (d >= 1).
    batch : int
        Fresh samples per step (>= 1).
    steps : int
        SGD steps (>= 0).
    lr_w : float
        eta_w (> 0); ``eta_b = lr_w * lr_b_factor`` with ``lr_b_factor`` defaulting to 1/k (Sec. 3.3).
    sigma : float or None
        Noise standard deviation; None means log k / sqrt k (Sec. 3.3; the code's noise scalar 1).
    init_norm : float
        |w^(0)| (random direction), b^(0) = 0.
    simulator : {"reduced", "direct"}
    eval_every, n_test : int
        Evaluation period and test-set size (fresh inputs at every evaluation).
    dtype : str or None
        ``float64``/``float32``; None = the device default (float64 on the CPU).
    num_threads : int or None
        torch intra-op threads for the run (None leaves the setting alone).
    """

    k: int = 1000
    d: int = 10
    batch: int = 500
    steps: int = 10_000
    lr_w: float = 0.1
    lr_b_factor: float | None = None
    sigma: float | None = None
    init_norm: float = 1e-6
    seeds: tuple[int, ...] = (0,)
    simulator: str = "reduced"
    eval_every: int = 100
    n_test: int = 5000
    dtype: str | None = None
    num_threads: int | None = None

    def __post_init__(self) -> None:
        tl.check_k(self.k)
        tl.check_d(self.d)
        tl.check_batch(self.batch, "batch")
        tl.check_batch(self.n_test, "n_test")
        tl.check_batch(self.eval_every, "eval_every")
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 0:
            raise ValueError(f"steps must be an integer >= 0, got {self.steps!r}")
        if not (math.isfinite(self.lr_w) and self.lr_w > 0):
            raise ValueError(f"lr_w (eta_w) must be a finite number > 0, got {self.lr_w!r}")
        if self.lr_b_factor is not None and not (math.isfinite(self.lr_b_factor) and self.lr_b_factor >= 0):
            raise ValueError(f"lr_b_factor (eta_b / eta_w) must be a finite number >= 0, got {self.lr_b_factor!r}")
        if self.sigma is not None:
            tl.check_sigma(self.sigma)
        if not (math.isfinite(self.init_norm) and self.init_norm > 0):
            raise ValueError(f"init_norm (|w^(0)|) must be a finite number > 0, got {self.init_norm!r}")
        if self.simulator not in SIMULATORS:
            raise ValueError(f"simulator must be one of {SIMULATORS}, got {self.simulator!r}")
        if not self.seeds:
            raise ValueError("seeds must name at least one seed")

    @property
    def noise(self) -> float:
        """sigma (log k / sqrt k unless set)."""
        return tl.noise_sigma(self.k) if self.sigma is None else float(self.sigma)

    @property
    def lr_b(self) -> float:
        """eta_b = eta_w / k unless ``lr_b_factor`` is set."""
        return self.lr_w * (1.0 / self.k if self.lr_b_factor is None else self.lr_b_factor)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SignalRun:
    """The history of a run: ``steps (T,)`` and per seed ``c, v, b, accuracy (T, S)`` (c = w . w_*, v = |w_perp|),
    the wall time and the config. ``tau = |b|/c`` and ``cos(w, w_*) = c / sqrt(c^2 + v^2)`` are derived."""

    config: SignalTrainConfig
    steps: np.ndarray
    c: np.ndarray
    v: np.ndarray
    b: np.ndarray
    accuracy: np.ndarray
    seconds: float

    @property
    def tau(self) -> np.ndarray:
        """``|b| / c`` (NaN where c <= 0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.c > 0, np.abs(self.b) / self.c, np.nan)

    @property
    def cosine(self) -> np.ndarray:
        """``cos(w, w_*) = c / sqrt(c^2 + v^2)``."""
        return self.c / np.hypot(self.c, self.v)


def _generator(seeds: Sequence[int], tag: str, device: torch.device) -> torch.Generator:
    digest = hashlib.sha256(f"{tag}:{tuple(seeds)}".encode()).digest()
    gen = torch.Generator(device=device)
    gen.manual_seed(int.from_bytes(digest[:8], "little") % (2**63))
    return gen


def w_star(d: int) -> np.ndarray:
    """The signal direction of the authors' code, ``1/sqrt(d)`` in every entry."""
    return np.full(d, 1 / math.sqrt(d))


def initial_state(config: SignalTrainConfig) -> np.ndarray:
    """``w^(0)`` per seed, ``(S, d)``: norm ``init_norm`` in a direction drawn from the seed's own generator (both
    simulators start from the same w^(0) for the same seed)."""

    def init(seed: int) -> torch.Tensor:
        g = torch.Generator().manual_seed(int(seed))
        w = torch.randn(config.d, generator=g, dtype=torch.float64)
        return config.init_norm * w / w.norm()

    return stack_seeds(config.seeds, init).numpy()


def memory_estimate(config: SignalTrainConfig, itemsize: int = 8) -> int:
    """Estimated peak bytes of a :func:`train_signal` run (an upper estimate), ``itemsize`` bytes per float.

    ``reduced``: the noise projections of one batch or one test set (the larger), ``S n k`` each, in eight
    buffers: the draw, ``z``, the two ReLU indicators ``up`` and ``down``, their sum and three temporaries of the
    sums (the sparse path allocates less). ``direct``: per input row (``S n (k+1)`` of them, n the batch or the
    evaluation chunk of about ``EVAL_CHUNK_ELEMENTS`` entries, the larger) three buffers of ``d`` entries (the noise
    ``eps``, the concatenated ``X``, and the raw draw or, while the next test chunk is drawn, the previous ``X``)
    and eight per-row buffers (the projections, the ReLU terms and autograd's gradients). Measured peaks (tests)
    are 1.1-2.3 times smaller.
    """
    S, k, d = len(config.seeds), config.k, config.d
    if config.simulator == "reduced":
        return 8 * S * max(config.batch, config.n_test) * k * int(itemsize)
    chunk = min(config.n_test, max(1, EVAL_CHUNK_ELEMENTS // (S * (k + 1) * d)))
    return S * max(config.batch, chunk) * (k + 1) * (3 * d + 8) * int(itemsize)


def _phi(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.relu(x + b) - torch.relu(-x + b)


def _signs(gen: torch.Generator, shape: tuple[int, ...], dev: torch.device, dt: torch.dtype) -> torch.Tensor:
    return torch.randint(0, 2, shape, generator=gen, device=dev).to(dt) * 2 - 1


#: The sparse path is used when every seed has b < 0 and P[|z| > |b|] is below this.
SPARSE_BELOW = 0.5


def _noise_stats(
    gen: torch.Generator, s: torch.Tensor, b: torch.Tensor, k: int, n: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Sufficient statistics of the k noise projections ``z ~ N(0, s^2)`` of n fresh inputs per seed, ``(S, n)``
    each: ``F = sum_i phi_b(z_i)``, ``Pz = sum_i phi_b'(z_i) z_i``, ``P2 = sum_i phi_b'(z_i)^2`` and
    ``Pb = sum_i d phi_b / db (z_i)``.

    Dense path: draw all ``k n`` projections (for ``b <= 0`` the statistics are formed from ``1{|z| > |b|}``, as on
    the sparse path, in half the passes over the draw). Sparse path (every seed has ``b < 0`` and
    ``q = P[|z| > |b|] < SPARSE_BELOW``): rows with ``|z| <= |b|`` contribute nothing to any statistic, so draw the
    number of the others, ``Binomial(k, q)``, and their values from the Gaussian tail by inverse CDF (exact in
    distribution); there ``phi_b' = 1``, ``d phi_b/db = sign z`` and ``F = Pz - |b| Pb``."""
    S, dev, dt = s.shape[0], s.device, s.dtype
    alpha = torch.where(b < 0, -b / s, torch.zeros_like(b))
    tail = torch.special.ndtr(-alpha)  # P[z > |b|]
    if bool((b < 0).all()) and float(2 * tail.max()) < SPARSE_BELOW:
        counts = torch.binomial(
            torch.full((S, n), float(k), device=dev, dtype=dt), (2 * tail)[:, None].expand(S, n), generator=gen
        )
        owner = torch.repeat_interleave(torch.arange(S * n, device=dev), counts.flatten().long())
        seed_of = owner // n
        u = 1.0 - torch.rand(owner.shape[0], generator=gen, device=dev, dtype=dt)  # in (0, 1]: ndtri stays finite
        mag = -s[seed_of] * torch.special.ndtri(u * tail[seed_of])
        sign = torch.randint(0, 2, owner.shape, generator=gen, device=dev).to(dt) * 2 - 1
        Pz = torch.zeros(S * n, device=dev, dtype=dt).index_add_(0, owner, sign * mag).view(S, n)
        Pb = torch.zeros(S * n, device=dev, dtype=dt).index_add_(0, owner, sign).view(S, n)
        return Pz + b[:, None] * Pb, Pz, counts, Pb
    z = s[:, None, None] * torch.randn(S, n, k, generator=gen, device=dev, dtype=dt)
    if bool((b <= 0).all()):
        # b <= 0: phi_b'(z) = 1{|z| > |b|} (0 or 1), d phi_b/db = sign z there, and F = Pz + b Pb, as on the sparse
        # path: the same statistics of the same draw in half the passes over the (S, n, k) array
        m = z.abs() > -b[:, None, None]
        mz = z * m
        Pz, Pb = mz.sum(-1), torch.sign(mz).sum(-1)
        return Pz + b[:, None] * Pb, Pz, m.sum(-1, dtype=dt), Pb
    bb = b[:, None, None]
    up, down = (z + bb > 0).to(dt), (-z + bb > 0).to(dt)
    d1 = up + down
    F = (torch.relu(z + bb) - torch.relu(-z + bb)).sum(-1)
    return F, (d1 * z).sum(-1), (d1 * d1).sum(-1), (up - down).sum(-1)


def _reduced_accuracy(
    gen: torch.Generator, c: torch.Tensor, v: torch.Tensor, b: torch.Tensor, sigma: float, k: int, n: int
) -> torch.Tensor:
    """Test accuracy ``mean(y f > 0)`` on n fresh inputs per seed, sampled through the projections z."""
    S = c.shape[0]
    F, *_ = _noise_stats(gen, sigma * torch.sqrt(c * c + v * v), b, k, n)
    y = _signs(gen, (S, n), c.device, c.dtype)
    f = F + y * _phi(c, b)[:, None]
    return (y * f > 0).to(c.dtype).mean(1)


def _train_reduced(
    cfg: SignalTrainConfig,
    setting: RunSetting,
    options: RunOptions,
    ckpt: Checkpoint | None,
    at: Callable[[int], None],
    start: dict | None = None,
) -> dict:
    dev, dt = setting.device, setting.dtype
    S, k, B, d, sigma = len(cfg.seeds), cfg.k, cfg.batch, cfg.d, cfg.noise
    w0 = torch.as_tensor(initial_state(cfg), device=dev, dtype=dt)
    ws = torch.as_tensor(w_star(d), device=dev, dtype=dt)
    c = w0 @ ws
    v = torch.sqrt(torch.clamp((w0 * w0).sum(1) - c * c, min=0.0))
    b = torch.zeros(S, device=dev, dtype=dt)
    if start is not None:
        c, v, b = (torch.as_tensor(np.asarray(start[key]), device=dev, dtype=dt).reshape(S) for key in ("c", "v", "b"))
    gen = _generator(cfg.seeds, "reduced", dev)
    test_gen = _generator(cfg.seeds, "test", dev)
    chi_dof = max(d - 2, 0)
    hist: dict[str, list] = {"steps": [], "c": [], "v": [], "b": [], "accuracy": []}

    def evaluate(step: int) -> dict:
        acc = _reduced_accuracy(test_gen, c, v, b, sigma, k, cfg.n_test)
        for key, val in (("c", c), ("v", v), ("b", b), ("accuracy", acc)):
            hist[key].append(val.detach().to("cpu", copy=True))  # tensors: a checkpoint holds the history
        hist["steps"].append(step)
        return {"acc": float(acc.mean())}

    def step_fn(step: int) -> torch.Tensor:
        nonlocal c, v, b
        at(step)  # the time estimate of a long run, after a few updates
        r2 = c * c + v * v
        F, Pz, P2, Pb = _noise_stats(gen, sigma * torch.sqrt(r2), b, k, B)
        y = _signs(gen, (S, B), dev, dt)
        yc = y * c[:, None]
        bs = b[:, None]
        f = F + _phi(yc, bs)
        dl = -y * torch.sigmoid(-y * f)  # dl/df per input, (S, B)
        sup, sdown = (yc + bs > 0).to(dt), (-yc + bs > 0).to(dt)
        Gz = (dl * Pz).sum(1) / r2  # coefficient of w in sum dz eps
        Q = (dl * dl * P2).sum(1)  # sum dz^2
        Gs = (dl * (sup + sdown) * y).sum(1)  # the signal row, along w_*
        gb = ((dl * Pb).sum(1) + (dl * (sup - sdown)).sum(1)) / B
        xi = torch.randn(S, 2, generator=gen, device=dev, dtype=dt)
        if d == 1:
            xi[:, 1] = 0.0
        proj = (c * xi[:, 0] + v * xi[:, 1]) / r2
        p1, p2 = xi[:, 0] - proj * c, xi[:, 1] - proj * v  # P_perp xi in the (w_*, w_perp/v) plane
        noise = sigma * torch.sqrt(Q)
        g1 = (Gz * c + noise * p1 + Gs) / B
        g2 = (Gz * v + noise * p2) / B
        if chi_dof:
            chi2 = (torch.randn(S, chi_dof, generator=gen, device=dev, dtype=dt) ** 2).sum(1)
        else:
            chi2 = torch.zeros(S, device=dev, dtype=dt)
        c = c - cfg.lr_w * g1
        v = torch.sqrt((v - cfg.lr_w * g2) ** 2 + (cfg.lr_w * noise / B) ** 2 * chi2)
        b = b - cfg.lr_b * gb
        return c + v + b  # the guard's per-seed check: NaN/inf in any of the three shows here

    def state() -> dict[str, Any]:
        return {"cvb": [t.detach().cpu() for t in (c, v, b)]}

    def restore(saved: Mapping[str, Any]) -> None:
        nonlocal c, v, b
        c, v, b = (t.to(dev, dt) for t in saved["cvb"])

    guard = NonFiniteGuard(tuple(cfg.seeds), "local-signal", REMEDY, every=max(1, cfg.eval_every))
    evaluations = Evaluations(evaluate)
    trainer = TrainerState(
        {},
        generators=(gen, test_gen),
        extra=state,
        restore_extra=restore,
        records={"hist": hist},
        evaluations=evaluations,
    )
    _run(cfg, options, ckpt, trainer, evaluations, step_fn, guard, f"local signal (reduced, k={k})")
    return hist


def _run(
    cfg: SignalTrainConfig,
    options: RunOptions,
    ckpt: Checkpoint | None,
    trainer: TrainerState,
    evaluations: Evaluations,
    step_fn: Callable[[int], torch.Tensor],
    guard: NonFiniteGuard,
    desc: str,
) -> None:
    """The loop both simulators share: resume ``trainer`` from ``ckpt`` (:func:`verify.runtime.checkpoint.resume`),
    then run ``step_fn`` for ``cfg.steps`` updates of Alg. 3.1 (:func:`verify.runtime.loop.run_loop`), evaluating
    every ``cfg.eval_every`` steps, with ``guard`` checking each update and a progress bar ``desc`` showing the mean
    test accuracy."""
    begin = resume(ckpt, trainer, options.checkpoint_every)
    run_loop(
        step_fn,
        cfg.steps,
        evaluate=evaluations,
        eval_every=cfg.eval_every,
        guard=guard,
        resumption=begin,
        bar=Bar(enabled=options.progress, desc=desc, postfix=lambda r: {"acc": f"{r['acc']:.3f}"}),
    )


def _train_direct(
    cfg: SignalTrainConfig,
    setting: RunSetting,
    options: RunOptions,
    ckpt: Checkpoint | None,
    at: Callable[[int], None],
) -> dict:
    dev, dt = setting.device, setting.dtype
    S, k, B, d, sigma = len(cfg.seeds), cfg.k, cfg.batch, cfg.d, cfg.noise
    w = torch.as_tensor(initial_state(cfg), device=dev, dtype=dt).requires_grad_(True)
    b = torch.zeros(S, device=dev, dtype=dt, requires_grad=True)
    ws = torch.as_tensor(w_star(d), device=dev, dtype=dt)
    gen = _generator(cfg.seeds, "direct", dev)
    test_gen = _generator(cfg.seeds, "direct-test", dev)
    hist: dict[str, list] = {"steps": [], "c": [], "v": [], "b": [], "accuracy": []}

    def inputs(g: torch.Generator, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``X (S, n, k+1, d)``: k noise rows then the signal row (f is a sum over rows: their order is irrelevant)."""
        y = _signs(g, (S, n), dev, dt)
        eps = sigma * torch.randn(S, n, k, d, generator=g, device=dev, dtype=dt)
        return torch.cat([eps, (y[..., None] * ws)[:, :, None, :]], dim=2), y

    def f_of(X: torch.Tensor) -> torch.Tensor:
        return _phi(torch.einsum("snkd,sd->snk", X, w), b[:, None, None]).sum(-1)

    def evaluate(step: int) -> dict:
        with torch.no_grad():
            correct = torch.zeros(S, device=dev, dtype=dt)
            done = 0
            while done < cfg.n_test:
                m = min(cfg.n_test - done, max(1, EVAL_CHUNK_ELEMENTS // (S * (k + 1) * d)))
                X, y = inputs(test_gen, m)
                correct += (y * f_of(X) > 0).to(dt).sum(1)
                done += m
            c = w @ ws
            v = torch.sqrt(torch.clamp((w * w).sum(1) - c * c, min=0.0))
            acc = correct / cfg.n_test
            for key, val in (("c", c), ("v", v), ("b", b), ("accuracy", acc)):
                hist[key].append(val.detach().to("cpu", copy=True))
        hist["steps"].append(step)
        return {"acc": float(acc.mean())}

    def step_fn(step: int) -> torch.Tensor:
        at(step)  # the time estimate of a long run, after a few updates
        X, y = inputs(gen, B)
        loss = torch.nn.functional.softplus(-y * f_of(X)).mean(1)  # log(1 + exp(-y f)) per seed
        gw, gb = torch.autograd.grad(loss.sum(), (w, b))
        with torch.no_grad():
            w.sub_(cfg.lr_w * gw)
            b.sub_(cfg.lr_b * gb)
        return loss.detach()

    guard = NonFiniteGuard(
        tuple(cfg.seeds), "local-signal", REMEDY, every=max(1, cfg.eval_every), weights={"w": w, "b": b}
    )
    evaluations = Evaluations(evaluate)
    trainer = TrainerState(
        {"w": w, "b": b}, generators=(gen, test_gen), records={"hist": hist}, evaluations=evaluations
    )
    _run(cfg, options, ckpt, trainer, evaluations, step_fn, guard, f"local signal (direct, k={k}, d={d})")
    return hist


#: Noise projections (seeds x batch x k) of one update at most in :func:`probe_signal_step`: a larger run is probed on
#: fewer seeds, then fewer noise rows, and scaled by both (the step's tensors have the seeds as their leading factor and
#: the rows as their last; the update of one seed at k = 1000 and 2000 took 21 and 42 ms, batch 500).
PROBE_MAX_PROJECTIONS = 1_000_000
#: Tries of :func:`probe_signal_step`, each with 4 times the updates of the last, while a difference of its runs is
#: not positive (the machine's noise).
PROBE_ATTEMPTS = 3

_TIMED: dict[tuple[SignalTrainConfig, str], tuple[float, float] | None] = {}  # by probed shape and device


@dataclass(frozen=True)
class SignalProbe:
    """A timing of :func:`train_signal` at a configuration's shapes (:func:`probe_signal_step`).

    Attributes
    ----------
    update_s : float
        Seconds per update of all the configuration's seeds.
    evaluation_s : float
        Seconds per evaluation of all its seeds on its ``n_test`` inputs.
    probe_seeds, probe_k : int
        The seeds and noise rows the probe ran (the times are scaled from them to the configuration's).
    """

    update_s: float
    evaluation_s: float
    probe_seeds: int
    probe_k: int

    def seconds(self, config: SignalTrainConfig) -> float:
        """The run's time, ``steps x update_s + evaluations x evaluation_s``, with an evaluation at every multiple of
        ``eval_every`` and at the last step (:func:`verify.runtime.loop.evaluation_count`)."""
        return config.steps * self.update_s + evaluation_count(config.steps, config.eval_every) * self.evaluation_s


def probe_signal_step(config: SignalTrainConfig, device: str = "cpu", updates: int = 4) -> SignalProbe | None:
    """Time :func:`train_signal` at ``config``'s shapes on ``device``, as the machine is loaded now (the plan's probe,
    :mod:`verify.report.plan`).

    The probed shape is ``config`` with ``S'`` of its ``S`` seeds and ``k'`` of its ``k`` noise rows, the most that
    keep ``S' batch k'`` within :data:`PROBE_MAX_PROJECTIONS` (all seeds, then all rows, when they fit; at least one
    seed and two rows), and ``n' = min(n_test, batch)`` test inputs. The real trainer runs it three times, without
    checkpoint or progress bar (the seeds are 0, 1, ...: their values do not change the time): A, ``a = updates``
    updates evaluated at steps 0 and a; C, ``3a`` updates evaluated at 0 and 3a; B, ``a`` updates evaluated at every
    step (``a - 1`` evaluations more than A). The set-up cancels in the differences; with ``r = S k / (S' k')``:

    ``update = (C - A) / (2a) x r``,  ``evaluation = (B - A) / (a - 1) x (n_test / n') x r``

    (an update draws ``S batch k`` noise projections and an evaluation ``S n k``, or ``(k+1) d`` input entries per
    input in the direct simulator: linear in each factor; the per-input work that does not grow with k is scaled
    too, an overestimate). While a difference is not positive (the machine's noise), again with 4 times the updates,
    :data:`PROBE_ATTEMPTS` tries in all; then None: no honest number. The timing of a probed shape is kept for the
    process (Thm 3.1's runs at k = 2000, 3000, 4000 share one).
    """
    if isinstance(updates, bool) or not isinstance(updates, int) or updates < 2:
        raise ValueError(f"updates must be an integer >= 2, got {updates!r}")
    S, k, batch = len(config.seeds), config.k, config.batch
    kept = max(1, min(S, PROBE_MAX_PROJECTIONS // (batch * k)))
    rows = max(2, min(k, PROBE_MAX_PROJECTIONS // (batch * kept)))
    n = min(config.n_test, batch)
    probed = replace(config, seeds=tuple(range(kept)), k=rows, n_test=n, steps=0, eval_every=1, sigma=config.noise)
    key = (probed, device)
    if key not in _TIMED:
        _TIMED[key] = _time_signal(probed, device, updates)
    timed = _TIMED[key]
    if timed is None:
        return None
    scale = S * k / (kept * rows)
    return SignalProbe(timed[0] * scale, timed[1] * (config.n_test / n) * scale, kept, rows)


def _time_signal(probed: SignalTrainConfig, device: str, updates: int) -> tuple[float, float] | None:
    """(seconds per update, seconds per evaluation) of ``probed`` (:func:`probe_signal_step`), or None."""
    options = RunOptions(device=device)

    def timed(steps: int, every: int) -> float:
        return wall_seconds(lambda: train_signal(replace(probed, steps=steps, eval_every=every), options))

    a = updates
    for _ in range(PROBE_ATTEMPTS):
        short = timed(a, a)
        update, evaluation = (timed(3 * a, 3 * a) - short) / (2 * a), (timed(a, 1) - short) / (a - 1)
        if update > 0 and evaluation > 0:
            return update, evaluation
        a *= 4
    return None


def train_signal(
    config: SignalTrainConfig, options: RunOptions = DEFAULT_OPTIONS, *, start_state: dict | None = None
) -> SignalRun:
    """Run Alg. 3.1 for every seed of ``config`` with the chosen simulator; returns the history.

    ``options`` (:class:`verify.runtime.options.RunOptions`): device, dtype (default ``config.dtype``, else float64
    on the CPU and float32 on CUDA), the seed offset (shifts ``config.seeds``: initialisations and data streams),
    progress, the memory-check override. ``start_state`` (reduced simulator only) continues from given per-seed
    ``{"c", "v", "b"}`` instead of the initialisation (e.g. the last state of an earlier run).

    With a checkpoint file the run saves its state (w and b, or the reduced (c, v, b); the training and test
    generators; the history) every ``options.checkpoint_every`` steps, every ``CHECKPOINT_SECONDS``, at the end and
    on Ctrl-C, and resumes from a trusted checkpoint of the same arguments (:func:`verify.runtime.checkpoint.resume`;
    ``num_threads`` may differ) with the history of an uninterrupted run.

    Before the first update :func:`memory_estimate` is checked against the device's free memory
    (:class:`verify.runtime.memory.InsufficientMemoryError` unless ``options.ignore_memory_check``); a run whose
    first updates predict more than ``PRINT_ESTIMATE_S`` seconds prints its memory and time estimate on stderr."""
    config, setting = options.configure(config, f"local-signal-{config.simulator}")
    dev, dt = setting.device, setting.dtype
    t0 = time.perf_counter()
    if config.simulator != "reduced" and start_state is not None:
        raise ValueError("start_state is supported by the reduced simulator only")
    S, sizes = len(config.seeds), f"k = {config.k}, batch {config.batch}, {config.n_test} test inputs"
    at = preflight(
        memory_estimate(config, torch.tensor([], dtype=dt).element_size()),
        dev,
        f"local-signal SGD ({config.simulator}) of {S} seeds ({sizes}"
        + (f", d = {config.d})" if config.simulator == "direct" else ")"),
        "lower batch or n_test, or train fewer seeds per call"
        + (" (or use the reduced simulator)" if config.simulator == "direct" else ""),
        steps=config.steps,
        n_seeds=S,
        desc=f"local signal ({config.simulator}, k={config.k})",
        eval_every=config.eval_every,
        ignore=options.ignore_memory_check,
    )
    ckpt = Checkpoint.for_run(
        options,
        setting,
        f"local_signal_{config.simulator}",
        {**to_jsonable(config), "start_state": to_jsonable(start_state)},
        config.steps,
        resumable=frozenset({"num_threads"}),
    )
    with torch_threads(config.num_threads), setting.precision():
        if config.simulator == "reduced":
            hist = _train_reduced(config, setting, options, ckpt, at, start_state)
        else:
            hist = _train_direct(config, setting, options, ckpt, at)
    return SignalRun(
        config=config,
        steps=np.asarray(hist["steps"]),
        c=np.stack([t.numpy() for t in hist["c"]]),
        v=np.stack([t.numpy() for t in hist["v"]]),
        b=np.stack([t.numpy() for t in hist["b"]]),
        accuracy=np.stack([t.numpy() for t in hist["accuracy"]]),
        seconds=time.perf_counter() - t0,
    )
