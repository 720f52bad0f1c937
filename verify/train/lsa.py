r"""Torch LSA (Shi Eq. 5.1) trained on in-context linear regression, many seeds at once, and its comparison with
the closed-form optimum of Shi Thm 5.4.1 (docs/lsa.md; the training recipes are described in docs/training.md).

* :func:`lsa_predict`: the full ``(d+1) x (d+1)`` forward of Eq. 5.1, ``out[-1, -1]``, batched over seeds.
* :func:`sample_prompts`: ``x ~ N(0, Lambda)``, ``w ~ N(0, I)`` (or fixed), optional label noise.
* :func:`train_population`: Adam on the closed-form expected loss ``l~(u A B^T, 1)`` (Shi Lemma 5.1), then an
  L-BFGS polish.
* :func:`train_sgd`: the reduced model ``u (y^T X) A B^T x_q / N`` or the full model (``W^KQ = K^T Q_m`` of
  rank r, label-row blocks initialised to 0), Adam with cosine decay on fresh prompts.
* :func:`compare_to_optimum`: the gauge-invariant ``M_eff = w22^PV W11^KQ + w21^PV (w21^KQ)^T`` against
  ``U*`` (relative Frobenius error), the analytic loss gap ``l~(M_eff, 1) + 1/2 tr Lambda - L_r`` and the spectrum
  ``diag(Q^T M_eff Q)`` in the eigenbasis of Lambda. Never compare raw matrices: (u, U) -> (u/c, cU) and the
  GL(r) gauge of the factorisation leave the model unchanged.

Every parameter carries a leading seed dimension S; training raises
:class:`verify.runtime.divergence.TrainingDiverged` on NaN/inf. Each trainer takes its configuration
(:class:`PopulationConfig`, :class:`SGDConfig`) and the run's :class:`verify.runtime.options.RunOptions`.
The Adam phases run in :func:`verify.runtime.loop.run_loop` (cosine lr schedule, NaN guard, progress bar). Before the
first update both trainers compare :func:`memory_estimate` with the device's free memory
(:func:`verify.runtime.memory.preflight`: ``InsufficientMemoryError`` unless ``RunOptions.ignore_memory_check``), and a run
whose first updates predict more than a minute prints its memory and time estimate on stderr.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import numpy as np
import torch

from numerics import lsa as nl
from verify.runtime.checkpoint import Checkpoint, TrainerState, resume
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.loop import Bar, cosine_annealing, run_loop, stack_seeds
from verify.runtime.memory import preflight
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions, RunSetting

__all__ = [
    "Comparison",
    "LSAResult",
    "PopulationConfig",
    "SGDConfig",
    "compare_to_optimum",
    "lsa_predict",
    "m_eff",
    "memory_estimate",
    "population_reduced_loss",
    "sample_prompts",
    "train_population",
    "train_sgd",
]

LBFGS_HISTORY = 50  # curvature pairs kept by the L-BFGS polish of train_population
MODELS = ("population", "reduced", "full")


REMEDY = "lower lr or the init scale"  # what a diverged run should change


def _covariance_data(Lam: Any) -> tuple:
    """Lambda as hashable data: the tuple of its eigenvalues (a vector) or of its rows (a matrix)."""
    arr = np.asarray(Lam, dtype=np.float64)
    return tuple(arr.tolist()) if arr.ndim == 1 else tuple(tuple(row) for row in arr.tolist())


@dataclass(frozen=True)
class _TaskConfig:
    """The task both trainers share: the covariance Lambda (stored as hashable data, :func:`_covariance_data`), the
    prompt length N, the rank r of the factorisation and the seeds (stored as ints); see :class:`PopulationConfig`."""

    Lam: Any
    N: int
    r: int
    seeds: tuple[int, ...] = (0,)

    def __post_init__(self) -> None:
        object.__setattr__(self, "Lam", _covariance_data(self.Lam))
        object.__setattr__(self, "seeds", tuple(int(s) for s in self.seeds))


@dataclass(frozen=True)
class PopulationConfig(_TaskConfig):
    """Gradient training on the closed-form expected loss (:func:`train_population`).

    Parameters
    ----------
    Lam : array-like
        The covariance Lambda of x, as its eigenvalues (diagonal) or the full matrix.
    N : int
        Prompt length.
    r : int
        Rank of the factorisation ``u A B^T``.
    seeds : tuple of int
        One run per seed (initialisations ``A`` from the seed, ``B`` from seed + 10007).
    steps, lr, init_std : int, float, float
        Adam's updates (cosine decay to lr / 100), learning rate and the initial scale.
    polish_steps : int
        L-BFGS iterations after Adam (0: none).
    dtype : str or None
        Training dtype (None: float64 on the CPU, float32 on CUDA).
    """

    steps: int = 3000
    lr: float = 1e-2
    init_std: float = 0.3
    polish_steps: int = 200
    dtype: str | None = "float64"


@dataclass(frozen=True)
class SGDConfig(_TaskConfig):
    """SGD on fresh prompts (:func:`train_sgd`).

    Parameters
    ----------
    Lam, N, r, seeds :
        As :class:`PopulationConfig` (the full model also draws ``W^PV`` from seed + 20011).
    model : {'reduced', 'full'}
        The reduced model ``u (y^T X) A B^T x_q / N`` or Eq. 5.1 with ``W^KQ = K^T Q_m`` of rank r.
    steps, batch, lr, init_std : int, int, float, float
        Adam's updates (cosine decay to 0), prompts per step, learning rate, initial scale.
    dtype : str or None
        Training dtype (None: float64 on the CPU, float32 on CUDA).
    """

    model: Literal["reduced", "full"] = "reduced"
    steps: int = 3000
    batch: int = 1024
    lr: float = 1e-2
    init_std: float = 0.1
    dtype: str | None = "float64"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.model not in ("reduced", "full"):
            raise ValueError(f"model must be 'reduced' or 'full', got {self.model!r}")


def lsa_predict(E: torch.Tensor, WPV: torch.Tensor, WKQ: torch.Tensor, rho: float) -> torch.Tensor:
    """Eq. 5.1 prediction ``(E + W^PV E (E^T W^KQ E)/rho)[-1, -1]``.

    Shapes: ``E (S, B, d+1, n+1)``, ``WPV, WKQ (S, d+1, d+1)``; returns ``(S, B)``. Only the needed row and column
    are formed (the full product agrees to rounding, see tests).
    """
    if E.dim() != 4 or WPV.shape[-2:] != (E.shape[2], E.shape[2]) or WKQ.shape != WPV.shape:
        raise ValueError(
            f"shape mismatch: E {tuple(E.shape)} (S, B, d+1, n+1), W^PV {tuple(WPV.shape)}, "
            f"W^KQ {tuple(WKQ.shape)} (S, d+1, d+1)"
        )
    row = torch.einsum("sj,sbjn->sbn", WPV[:, -1, :], E)
    col = torch.einsum("sbjn,sbj->sbn", E, torch.einsum("sij,sbj->sbi", WKQ, E[..., -1]))
    return E[:, :, -1, -1] + (row * col).sum(-1) / rho


def m_eff(WPV: torch.Tensor, WKQ: torch.Tensor) -> torch.Tensor:
    """``M_eff = w22^PV W11^KQ + w21^PV (w21^KQ)^T``: the only identifiable quantity (docs/lsa.md); ``(S, d, d)``."""
    d = WPV.shape[-1] - 1
    return WPV[..., d, d, None, None] * WKQ[..., :d, :d] + WPV[..., d, :d, None] * WKQ[..., d, None, :d]


def _lambda_root(Lam: np.ndarray) -> np.ndarray:
    ev, Q = np.linalg.eigh(Lam)
    return Q * np.sqrt(np.clip(ev, 0, None))


def sample_prompts(
    gen: torch.Generator,
    S: int,
    B: int,
    Lam: np.ndarray,
    n: int,
    *,
    w: torch.Tensor | None = None,
    sigma: float = 0.0,
    device: torch.device | str = "cpu",
    dtype: torch.dtype = torch.float64,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(E, y_q)``: ``E (S, B, d+1, n+1)`` with ``x ~ N(0, Lambda)``, ``w ~ N(0, I)`` per prompt (or the fixed
    ``w`` of shape ``(d,)``), labels ``<w, x_i> + N(0, sigma^2)``, query label slot 0; ``y_q = <w, x_q>``."""
    L = nl.as_covariance(Lam)
    d = L.shape[0]
    root = torch.as_tensor(_lambda_root(L), device=device, dtype=dtype)
    X = torch.randn(S, B, n + 1, d, generator=gen, device=device, dtype=dtype) @ root.T
    if w is None:
        W = torch.randn(S, B, d, generator=gen, device=device, dtype=dtype)
    else:
        w = torch.as_tensor(w, device=device, dtype=dtype)
        if w.shape != (d,):
            raise ValueError(f"w must have shape ({d},), got {tuple(w.shape)}")
        W = w.expand(S, B, d)
    y = torch.einsum("sbnd,sbd->sbn", X, W)
    E = torch.zeros(S, B, d + 1, n + 1, device=device, dtype=dtype)
    E[:, :, :d, :] = X.transpose(-1, -2)
    E[:, :, d, :n] = y[..., :n]
    if sigma:
        E[:, :, d, :n] += sigma * torch.randn(S, B, n, generator=gen, device=device, dtype=dtype)
    return E, y[..., n]


def population_reduced_loss(U: torch.Tensor, Lam: torch.Tensor, N: int) -> torch.Tensor:
    """``l~(U, 1) = tr[1/2 Gamma Lambda U Lambda U^T - Lambda^2 U^T]`` batched over seeds (Lemma 5.1); ``(S,)``."""
    d = Lam.shape[0]
    G = (1 + 1 / N) * Lam + torch.trace(Lam) / N * torch.eye(d, dtype=Lam.dtype, device=Lam.device)
    quad = ((G @ Lam) @ U @ Lam * U).sum(dim=(-1, -2))
    lin = ((Lam @ Lam) * U).sum(dim=(-1, -2))
    return 0.5 * quad - lin


@dataclass
class LSAResult:
    """A trained ensemble: ``M_eff (S, d, d)`` (numpy, float64), final training losses and the loss curve."""

    M_eff: np.ndarray
    final_loss: np.ndarray
    curve: list[float]
    seeds: tuple[int, ...]
    device: str
    details: dict = field(default_factory=dict)


def _setup(cfg: PopulationConfig | SGDConfig) -> tuple[np.ndarray, int]:
    """Lambda as a covariance matrix and its dimension d, after checking N, r and the seeds."""
    Lam, N, r, seeds = cfg.Lam, cfg.N, cfg.r, cfg.seeds
    L = nl.as_covariance(np.asarray(Lam, dtype=np.float64))
    d = L.shape[0]
    if isinstance(N, bool) or int(N) != N or N < 1:
        raise ValueError(f"N must be an integer >= 1, got {N!r}")
    if isinstance(r, bool) or int(r) != r or not 1 <= r <= d:
        raise ValueError(f"rank r must be an integer in [1, d = {d}], got {r!r}")
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be a non-empty sequence of distinct integers, got {seeds!r}")
    return L, d


@dataclass(frozen=True)
class _Run:
    """What both trainers settle before their first update (:func:`_start`)."""

    cfg: Any  # PopulationConfig | SGDConfig, after RunOptions.configure (seed offset, run-wide dtype)
    L: np.ndarray  # Lambda as a covariance matrix
    d: int
    device: torch.device
    dtype: torch.dtype
    setting: RunSetting  # device, dtype (its name: checkpoints are bound to it) and seeds that the run resolved
    label: str  # the progress bar's and the estimate line's name of the run
    at: Callable[[int], None]  # the time-estimate hook, called with each update's step


def _start(cfg: PopulationConfig | SGDConfig, options: RunOptions, trainer: str) -> _Run:
    """The configuration ``options`` make of ``cfg`` (:meth:`RunOptions.configure`), checked (:func:`_setup`), and
    its :func:`memory_estimate` compared with the device's free memory (:func:`verify.runtime.memory.preflight`):
    ``InsufficientMemoryError`` with a remedy, unless ``options.ignore_memory_check``."""
    cfg, setting = options.configure(cfg, trainer)
    L, d = _setup(cfg)
    dev, dt, S, r = setting.device, setting.dtype, len(cfg.seeds), cfg.r
    if isinstance(cfg, PopulationConfig):
        label = f"LSA population r={r}"
        need = memory_estimate("population", S, d, r, cfg.N, itemsize=dt.itemsize, polish=bool(cfg.polish_steps))
        what, remedy = f"LSA population training of {S} seeds (d = {d}, r = {r})", "train fewer seeds per call"
    else:
        label = f"LSA SGD ({cfg.model}) r={r}"
        need = memory_estimate(cfg.model, S, d, r, cfg.N, cfg.batch, dt.itemsize)
        what = f"LSA SGD ({cfg.model}) of {S} seeds (batch {cfg.batch}, d = {d}, N = {cfg.N}, r = {r})"
        remedy = "lower batch or train fewer seeds per call"
    at = preflight(need, dev, what, remedy, steps=cfg.steps, n_seeds=S, desc=label, ignore=options.ignore_memory_check)
    return _Run(cfg, L, d, dev, dt, setting, label, at)


def _adam_phase(
    run: _Run,
    options: RunOptions,
    name: str,
    state: TrainerState,
    update: Callable[[int], torch.Tensor],
    opt: torch.optim.Optimizer,
    lr_floor: float,
    guard: NonFiniteGuard,
) -> None:
    """The Adam phase of both trainers: ``run.cfg.steps`` updates, the learning rate cosine-annealed from
    ``run.cfg.lr`` to ``lr_floor``, checkpointed as trainer ``name`` (bound to the run's dtype:
    :meth:`verify.runtime.checkpoint.Checkpoint.for_run`) and resumed from a trusted checkpoint."""
    steps, lr = run.cfg.steps, run.cfg.lr
    start = resume(Checkpoint.for_run(options, run.setting, name, run.cfg, steps), state, options.checkpoint_every)
    run_loop(
        update,
        steps,
        optimizer=opt,
        lr_at=cosine_annealing(lr, max(1, steps), lr_floor, steps).__getitem__,
        guard=guard,
        resumption=start,
        bar=Bar(enabled=options.progress, desc=run.label),
    )


def memory_estimate(
    model: str, n_seeds: int, d: int, r: int, N: int, batch: int = 0, itemsize: int = 8, polish: bool = True
) -> int:
    """Estimated peak bytes of :func:`train_population` (``model="population"``) or :func:`train_sgd`
    (``"reduced"``, ``"full"``) for ``n_seeds`` seeds, dimension ``d``, rank ``r``, prompt length ``N`` and
    ``batch`` prompts per step (an upper estimate).

    Parameters (``2 d r + 1`` entries per seed, or ``r (d+1)`` twice plus ``(d+1)^2`` for the full model) count
    four times (weights, gradients, Adam's two slots), and ``2 LBFGS_HISTORY + 8`` more times for the population
    polish (its curvature pairs and work vectors). Per prompt of a step: the reduced model holds ``E`` and the
    drawn inputs (``2 (d+1)(N+1)`` entries), the full model ``E`` and the two contiguous copies its einsums make
    (``3 (d+1)(N+1)``), plus four ``(N+1)`` vectors (labels, row, column, their product) and four ``(d+1)``
    vectors. The population loss holds at most 24 ``(d, d)`` matrices per seed (products and gradients). Measured
    peaks (tests) are 1.3-2 times smaller for SGD, 1.1-3 times for the (kilobyte-sized) population runs.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    S, d, r, N, B = int(n_seeds), int(d), int(r), int(N), int(batch)
    if model == "population":
        params = S * (2 * d * r + 1)
        return (params * (4 + (2 * LBFGS_HISTORY + 8 if polish else 0)) + 24 * S * d * d) * int(itemsize)
    if model == "reduced":
        params, copies = S * (2 * d * r + 1), 2
    else:
        params, copies = S * (2 * r * (d + 1) + (d + 1) ** 2), 3
    per_prompt = copies * (d + 1) * (N + 1) + 4 * (N + 1) + 4 * (d + 1)
    return (4 * params + S * B * per_prompt) * int(itemsize)


def _seeded(seeds: Sequence[int], shape: tuple[int, ...], scale: float, dev, dt) -> torch.Tensor:
    """``scale * randn(shape)`` per seed, each from a generator seeded with that seed (float64, then moved)."""

    def init(seed: int) -> torch.Tensor:
        return scale * torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)

    return stack_seeds(seeds, init, device=dev, dtype=dt)


def _reduced_factors(
    seeds: Sequence[int], d: int, r: int, init_std: float, dev: torch.device, dt: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    """The factors ``A, B`` of the reduced model's ``U = u A B^T`` at initialisation.

    Parameters
    ----------
    seeds : sequence of int
        One ensemble member per seed.
    d, r : int
        Dimension and rank: each factor is ``(d, r)`` per seed.
    init_std : float
        The scale of the Gaussian entries.
    dev : torch.device
        Where the factors live.
    dt : torch.dtype
        Their dtype (drawn in float64, then cast).

    Returns
    -------
    A, B : torch.Tensor
        ``(S, d, r)`` each, requiring gradients: ``A`` drawn from each seed's generator (:func:`_seeded`), ``B``
        from the seed plus 10 007.
    """
    A = _seeded(seeds, (d, r), init_std, dev, dt).requires_grad_()
    B = _seeded([s + 10_007 for s in seeds], (d, r), init_std, dev, dt).requires_grad_()
    return A, B


def _adam_update(
    opt: torch.optim.Optimizer, loss: torch.Tensor, step: int, steps: int, curve: list[float], offset: float = 0.0
) -> torch.Tensor:
    """One optimiser update on the sum of the per-seed losses, recorded on the loss curve every so many updates.

    Parameters
    ----------
    opt : torch.optim.Optimizer
        The optimiser of the ensemble's parameters.
    loss : torch.Tensor
        The per-seed losses at this update, ``(S,)``, with their graph.
    step, steps : int
        This update's index and the run's number of updates (:func:`_curve_every`).
    curve : list of float
        The loss curve: on a recorded update it gains the mean loss plus ``offset``.
    offset : float
        What the curve adds to the mean loss (``tr Lambda / 2`` for the population loss, else 0; the losses are
        never ``-0.0``, so adding 0 leaves them bit for bit).

    Returns
    -------
    torch.Tensor
        ``loss``, detached.
    """
    opt.zero_grad()
    loss.sum().backward()
    opt.step()
    if step % _curve_every(steps) == 0:
        curve.append(float(loss.detach().mean()) + offset)
    return loss.detach()


def _curve_every(steps: int) -> int:
    """The loss curve keeps the loss of every that many updates (about 50 points)."""
    return max(1, steps // 50)


def _curve_state(curve: list[float]) -> dict[str, Any]:
    return {"curve": list(curve)}


def _restore_curve(curve: list[float], saved: dict[str, Any]) -> None:
    curve[:] = [float(v) for v in saved["curve"]]


def train_population(cfg: PopulationConfig, options: RunOptions = DEFAULT_OPTIONS) -> LSAResult:
    """Gradient training on the closed-form expected loss ``l~(u A B^T, 1)`` (Shi Lemma 5.1), ``A, B in R^{d x r}``,
    init ``init_std * randn``, ``u = 1``: ``steps`` of Adam (cosine decay to lr/100), then ``polish_steps``
    iterations of full-batch L-BFGS (strong Wolfe) on the same loss. The ensemble is trained as one batch (the loss
    is a sum over seeds, so seeds do not interact).

    ``options`` (:class:`verify.runtime.options.RunOptions`): device (a few d x d products: the CPU is the fastest),
    dtype (default ``cfg.dtype``), the seed offset (shifts ``cfg.seeds``), progress, the memory-check override.
    With a checkpoint file the Adam phase saves (A, B, u, Adam's state, the loss curve) every
    ``options.checkpoint_every`` steps, every ``CHECKPOINT_SECONDS``, at its end and on Ctrl-C, and resumes from a
    trusted checkpoint of the same configuration (:func:`verify.runtime.checkpoint.resume`); the L-BFGS polish then
    runs from the restored weights."""
    run = _start(cfg, options, "lsa-population")
    cfg, L, d, dev, dt, at = run.cfg, run.L, run.d, run.device, run.dtype, run.at
    N, r, seeds, steps, lr, polish_steps = cfg.N, cfg.r, cfg.seeds, cfg.steps, cfg.lr, cfg.polish_steps
    S = len(seeds)
    Lt = torch.as_tensor(L, device=dev, dtype=dt)
    A, B = _reduced_factors(seeds, d, r, cfg.init_std, dev, dt)
    u = torch.ones(S, device=dev, dtype=dt, requires_grad=True)
    half_tr = float(np.trace(L)) / 2

    def objective():
        return population_reduced_loss(u[:, None, None] * A @ B.transpose(1, 2), Lt, N)

    opt = torch.optim.Adam([A, B, u], lr=lr)
    guard = NonFiniteGuard(tuple(seeds), "lsa-population", REMEDY)
    curve: list[float] = []

    def update(step: int) -> torch.Tensor:
        at(step)  # the time estimate of a long run, after a few updates
        return _adam_update(opt, objective(), step, steps, curve, half_tr)

    state = TrainerState(
        {"A": A, "B": B, "u": u}, opt, extra=partial(_curve_state, curve), restore_extra=partial(_restore_curve, curve)
    )
    _adam_phase(run, options, "lsa_population", state, update, opt, lr / 100, guard)
    if polish_steps:
        lbfgs = torch.optim.LBFGS(
            [A, B, u],
            lr=1.0,
            max_iter=polish_steps,
            tolerance_grad=1e-14,
            tolerance_change=1e-16,
            history_size=LBFGS_HISTORY,
            line_search_fn="strong_wolfe",
        )

        def closure():
            lbfgs.zero_grad()
            val = objective().sum()
            val.backward()
            return val

        lbfgs.step(closure)
    with torch.no_grad():
        U = u[:, None, None] * A @ B.transpose(1, 2)
        final = population_reduced_loss(U, Lt, N) + half_tr
    guard(steps, final)
    curve.append(float(final.mean()))
    return LSAResult(
        U.cpu().double().numpy(),
        final.cpu().double().numpy(),
        curve,
        tuple(seeds),
        str(dev),
        details={"steps": steps, "polish_steps": polish_steps},
    )


def train_sgd(cfg: SGDConfig, options: RunOptions = DEFAULT_OPTIONS) -> LSAResult:
    """SGD (Adam, cosine decay to 0) on fresh prompts, half squared error, rho = N.

    ``model="reduced"``: ``y_hat = u (y^T X) A B^T x_q / N``, ``u_0 = 0.1``.
    ``model="full"``: Eq. 5.1 with full ``W^PV`` and ``W^KQ = K^T Q_m``, ``K, Q_m in R^{r x (d+1)}``; the label-row
    blocks ``K[:, d]`` and ``W^PV[d, :d]`` start at 0 (random label-row blocks can trap SGD: docs/training.md).

    ``options``: as :func:`train_population` (the prompt stream is seeded by the first seed). With a checkpoint file
    the run saves the weights, Adam's state, the prompt generator and the loss curve every
    ``options.checkpoint_every`` steps, every ``CHECKPOINT_SECONDS``, at the end and on Ctrl-C, and resumes from a
    trusted checkpoint of the same configuration (:func:`verify.runtime.checkpoint.resume`) on the trajectory of an
    uninterrupted run.
    """
    run = _start(cfg, options, f"lsa-sgd-{cfg.model}")
    cfg, L, d, dev, dt, at = run.cfg, run.L, run.d, run.device, run.dtype, run.at
    N, r, seeds, model, steps, batch, lr = cfg.N, cfg.r, cfg.seeds, cfg.model, cfg.steps, cfg.batch, cfg.lr
    init_std, S = cfg.init_std, len(seeds)
    gen = torch.Generator(device=dev).manual_seed(int(seeds[0]) * 7919 + 1)
    if model == "reduced":
        A, B = _reduced_factors(seeds, d, r, init_std, dev, dt)
        u = torch.full((S,), 0.1, device=dev, dtype=dt, requires_grad=True)
        params = [A, B, u]
        names = ("A", "B", "u")
    else:
        K = _seeded(seeds, (r, d + 1), init_std, dev, dt)
        K[:, :, d] = 0
        Qm = _seeded([s + 10_007 for s in seeds], (r, d + 1), init_std, dev, dt)
        WPV = _seeded([s + 20_011 for s in seeds], (d + 1, d + 1), init_std, dev, dt)
        WPV[:, d, :d] = 0
        K.requires_grad_(), Qm.requires_grad_(), WPV.requires_grad_()
        params = [K, Qm, WPV]
        names = ("K", "Q_m", "W_PV")
    opt = torch.optim.Adam(params, lr=lr)

    def weights():
        if model == "reduced":
            WPV_ = torch.zeros(S, d + 1, d + 1, device=dev, dtype=dt)
            WKQ_ = torch.zeros(S, d + 1, d + 1, device=dev, dtype=dt)
            WPV_[:, d, d] = u
            WKQ_[:, :d, :d] = A @ B.transpose(1, 2)
            return WPV_, WKQ_
        return WPV, K.transpose(1, 2) @ Qm

    curve: list[float] = []

    def update(step: int) -> torch.Tensor:
        at(step)  # the time estimate of a long run, after a few updates
        E, yq = sample_prompts(gen, S, batch, L, N, device=dev, dtype=dt)
        if model == "reduced":
            X = E[:, :, :d, :N]
            y = E[:, :, d, :N]
            sxy = torch.einsum("sbin,sbn->sbi", X, y)
            pred = u[:, None] * torch.einsum("sbi,sij,sbj->sb", sxy, A @ B.transpose(1, 2), E[:, :, :d, -1]) / N
        else:
            WPV_, WKQ_ = weights()
            pred = lsa_predict(E, WPV_, WKQ_, N)
        return _adam_update(opt, 0.5 * ((pred - yq) ** 2).mean(dim=1), step, steps, curve)

    state = TrainerState(
        dict(zip(names, params)),
        opt,
        generators=(gen,),
        extra=partial(_curve_state, curve),
        restore_extra=partial(_restore_curve, curve),
    )
    _adam_phase(
        run, options, "lsa_sgd", state, update, opt, 0.0, NonFiniteGuard(tuple(seeds), f"lsa-sgd-{model}", REMEDY)
    )
    with torch.no_grad():
        WPV_, WKQ_ = weights()
        M = m_eff(WPV_, WKQ_)
        p_norm = torch.linalg.vector_norm(WPV_[:, d, :d], dim=-1)
    return LSAResult(
        M.cpu().double().numpy(),
        np.array([float("nan")] * S),
        curve,
        tuple(seeds),
        str(dev),
        details={"model": model, "w21_PV_norm": p_norm.cpu().double().numpy().tolist()},
    )


@dataclass(frozen=True)
class Comparison:
    """Learned vs optimal, per seed: relative Frobenius error of M_eff, analytic loss gap, spectra."""

    rel_err: np.ndarray
    loss: np.ndarray
    loss_gap: np.ndarray
    optimal_loss: float
    spectrum: np.ndarray
    optimal_spectrum: np.ndarray
    unique: bool


def compare_to_optimum(M: np.ndarray, Lam: np.ndarray, N: int, r: int) -> Comparison:
    """Compare ``M_eff (S, d, d)`` with Thm 5.4.1's ``U* = Q diag(v*) Q^T`` (c = 1).

    ``loss`` is ``l~(M_eff, 1) + 1/2 tr Lambda``: the exact population loss of the odd part (equal to the loss
    once ``w21^PV ~ 0``). ``spectrum`` is ``diag(Q^T M_eff Q)`` in the descending eigenbasis of Lambda. With a tie
    ``lambda_r = lambda_{r+1}``, or a singular Lambda (``unique`` False), only the loss is meaningful, not ``rel_err``.
    """
    M = np.asarray(M, dtype=np.float64)
    L = nl.as_covariance(Lam)
    if M.ndim == 2:
        M = M[None]
    if M.shape[1:] != L.shape:
        raise ValueError(f"M_eff must have shape (S, {L.shape[0]}, {L.shape[0]}), got {M.shape}")
    U, v, Lr, ev, Q = nl.closed_form(L, N, r)
    rel = np.linalg.norm(M - U, axis=(1, 2)) / np.linalg.norm(U)
    loss = np.array([nl.ell_tilde(m, 1.0, L, N) + np.trace(L) / 2 for m in M])
    spec = np.einsum("ia,sij,ja->sa", Q, M, Q)
    tol = 1e-12 * max(1.0, ev[0])
    singular = ev[-1] <= tol  # a null direction of Lambda leaves U free there (Thm 5.4.1 assumes Lambda > 0)
    unique = r == 0 or (not singular and (r == L.shape[0] or ev[r - 1] - ev[r] > tol))
    return Comparison(rel, loss, loss - Lr, Lr, spec, v, bool(unique))
