r"""Training one-layer transformers on sparse Boolean functions (Edelman thesis Sec. 4.6, App. A.3;
``docs/sparse_variable.md``).

The model is :class:`verify.train.attention.AttentionEnsemble` with one layer, learned absolute positions
(``N(0, 0.02^2)``, as App. A.3.1), a GELU MLP of width 4d, parameter-free LayerNorm and dropout: the minGPT block
of the thesis. A context ``b in {0,1}^T`` is the token sequence ``b_1 .. b_T [CLS]`` (token 2); the causal mask
lets the last position attend to every bit, so it plays the thesis's [CLS] token, and the two-way readout at that
position is the classifier (cross-entropy, App. A.3.1).

* :func:`train_and`: full-batch training on m samples of a 3-sparse AND (App. A.3.1's data: iid ``Bern(2^{-1/3})``
  bits, samples consistent with more than one 3-subset redrawn), seed ensemble = trials x restarts, validation
  accuracy every ``eval_every`` steps, attention at [CLS] at the end (Fig. 4.3 right);
* :func:`cell_config`, :func:`and_cell`, :func:`and_threshold_sweep`: Fig. 4.2, one (T, m) cell is a unit of work;
* :func:`train_parity`: streaming training on a sparse parity of uniform bits (Fig. 4.4).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from numerics import sparse_variable as ns
from theory import sparse_variable as ts
from verify.runtime.checkpoint import fit_checkpoint
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions
from verify.train.attention import AttentionConfig, AttentionEnsemble, FitHooks, FitSchedule, fit

__all__ = [
    "AND_P",
    "CLS_TOKEN",
    "AndRun",
    "AndRunConfig",
    "ClsEnsemble",
    "ModelConfig",
    "ParityRun",
    "ParityRunConfig",
    "SweepConfig",
    "and_cell",
    "and_datasets",
    "and_threshold_sweep",
    "attention_config",
    "cell_config",
    "cls_cross_entropy",
    "thresholds_of",
    "train_and",
    "train_parity",
    "with_cls",
]

CLS_TOKEN = 2
#: Offset of the seed of torch's global generator, set before training (dropout masks; the weights and the data
#: come from per-seed generators).
DROPOUT_SEED = 20_240
#: App. A.3.1: bits are Bern(p) with p = (1/2)^(1/3), so a 3-AND is balanced.
AND_P = 0.5 ** (1 / 3)


@dataclass(frozen=True)
class ModelConfig:
    """The one-layer block (App. A.3.1: d = 64, 16 heads of width 4, MLP 4d, dropout 0.1, positions N(0, 0.02^2))."""

    d: int = 64
    heads: int = 16
    mlp_ratio: int = 4
    dropout: float = 0.1
    layer_norm: bool = True
    init_std: float = 0.02

    def __post_init__(self) -> None:
        if self.d < 1 or self.heads < 1 or self.d % self.heads:
            raise ValueError(f"need d >= 1 divisible by heads >= 1, got d = {self.d}, heads = {self.heads}")


def attention_config(T: int, model: ModelConfig) -> AttentionConfig:
    """The :class:`AttentionConfig` of a context of T bits plus [CLS] (vocabulary {0, 1, [CLS]}, two outputs)."""
    return AttentionConfig(
        vocab=3,
        max_len=T + 1,
        d=model.d,
        layers=1,
        heads=model.heads,
        positions="absolute",
        mlp=model.mlp_ratio * model.d,
        out=2,
        layer_norm=model.layer_norm,
        dropout=model.dropout,
        init_std=model.init_std,
    )


def with_cls(x: np.ndarray) -> np.ndarray:
    """Bits ``(..., T)`` -> tokens ``(..., T + 1)`` with [CLS] appended (int64)."""
    x = np.asarray(x, dtype=np.int64)
    return np.concatenate([x, np.full((*x.shape[:-1], 1), CLS_TOKEN, dtype=np.int64)], axis=-1)


def cls_cross_entropy(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-seed mean cross-entropy of the [CLS] (last) position: logits ``(S, B, T + 1, 2)``, labels ``(S, B)``."""
    S, B = y.shape
    return F.cross_entropy(logits[:, :, -1].reshape(S * B, 2), y.reshape(S * B), reduction="none").view(S, B).mean(1)


class ClsEnsemble(AttentionEnsemble):
    """The one-layer :class:`AttentionEnsemble` evaluated at the [CLS] (last) position only.

    With one layer the classifier reads nothing but the last position's output, and that output depends on the
    other positions only through their keys and values: so only the keys and values of every position and the query,
    attention row, MLP and readout of the last position are computed (the other rows of the full forward pass are
    never read). The parameters, the initialisation and the function are those of :class:`AttentionEnsemble`; the
    logits are ``(S, B, 1, out)`` (the last position) and the attention maps ``(S, B, H, 1, T)`` (the [CLS] row).
    About 6-8 times fewer multiply-adds per sequence at the sizes of the quick runs. Dropout acts where the full
    pass would act on what is read (embeddings, the [CLS] attention row, the [CLS] residual branches), with masks of
    other shapes, so a run's trajectory differs from the full pass's while its distribution is the same
    (``tests/verify/test_sparse_variable.py`` checks the function against the full pass)."""

    def __init__(self, cfg: AttentionConfig, params: dict[str, torch.Tensor]) -> None:
        if cfg.layers != 1 or cfg.positions == "relative":
            raise ValueError(f"ClsEnsemble needs one layer and absolute or no positions, got {cfg}")
        super().__init__(cfg, params)

    def forward(  # type: ignore[override]
        self, tokens: torch.Tensor, *, return_attention: bool = False, use_sdpa: bool = True
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        S, cfg = self.n_seeds, self.cfg
        if tokens.ndim == 2:
            tokens = tokens.unsqueeze(0).expand(S, *tokens.shape)
        if tokens.ndim != 3 or tokens.shape[0] != S or tokens.dtype != torch.int64:
            raise ValueError(
                f"tokens must be int64 (B, T) or (S = {S}, B, T), got {tokens.dtype} {tuple(tokens.shape)}"
            )
        B, T = tokens.shape[1:]
        if cfg.max_len < T:
            raise ValueError(f"sequence length {T} exceeds max_len = {cfg.max_len}")
        H, dh, d = cfg.heads, cfg.head_dim, cfg.d
        seed_idx = torch.arange(S, device=tokens.device)[:, None, None]
        z = self.p("embed")[seed_idx, tokens]  # (S, B, T, d)
        if cfg.positions == "absolute":
            z = z + self.p("pos")[:, None, :T]
        z = self._drop(z)
        x = self._norm(z)
        wkv = torch.cat([self.p("l0.k"), self.p("l0.v")], dim=1)  # (S, 2H, d, dh)
        kv = torch.bmm(x.reshape(S, B * T, d), wkv.permute(0, 2, 1, 3).reshape(S, d, 2 * H * dh))
        k, v = kv.view(S, B, T, 2, H, dh).unbind(3)  # (S, B, T, H, dh) each
        q = torch.einsum("sbd,shde->sbhe", x[:, :, -1], self.p("l0.q"))
        maps = torch.softmax(torch.einsum("sbhe,sbthe->sbht", q, k) / math.sqrt(dh), dim=-1)  # (S, B, H, T)
        heads = torch.einsum("sbht,sbthe->sbhe", self._drop(maps), v)
        c = z[:, :, -1] + self._drop(torch.einsum("sbhe,shed->sbd", heads, self.p("l0.o")))
        if cfg.mlp:
            h = F.gelu(
                torch.einsum("sbd,sdm->sbm", self._norm(c), self.p("l0.mlp_in")) + self.p("l0.mlp_in_b")[:, None]
            )
            c = c + self._drop(torch.einsum("sbm,smd->sbd", h, self.p("l0.mlp_out")) + self.p("l0.mlp_out_b")[:, None])
        logits = torch.einsum("sbd,sdo->sbo", self._norm(c), self.p("readout")) + self.p("readout_b")[:, None]
        logits = logits[:, :, None]
        return (logits, [maps[:, :, :, None]]) if return_attention else logits


def _accuracy(model: AttentionEnsemble, x: torch.Tensor, y: torch.Tensor, chunk: int = 4096) -> np.ndarray:
    """Per-seed accuracy at [CLS] on ``x`` ``(S, n, T + 1)`` (evaluated in chunks, eval mode)."""
    model.eval()
    hits = torch.zeros(x.shape[0], dtype=torch.float64, device=x.device)
    with torch.no_grad():
        for a in range(0, x.shape[1], chunk):
            pred = model(x[:, a : a + chunk])[:, :, -1].argmax(-1)
            hits += (pred == y[:, a : a + chunk]).double().sum(1)
    return (hits / x.shape[1]).cpu().numpy()


def _init_seed(trial: int, restart: int) -> int:
    return 1_000 * int(trial) + int(restart)


# --------------------------------------------------------------------------------------------- sparse AND


@dataclass(frozen=True)
class AndRunConfig:
    """Full-batch training on m samples of a 3-sparse AND of T bits (App. A.3.1).

    ``trials``: dataset seeds (one random support and one identifiable training set each, unless ``support`` fixes
    the support); ``restarts``: fresh initialisations per trial, trained side by side (a trial succeeds when any
    restart does). Adam(W) with ``lr``, ``weight_decay``; validation on ``n_val`` fresh samples every ``eval_every``
    steps; a seed succeeds when its validation accuracy exceeds ``success_acc``. ``stop_when_all_succeed`` ends the
    run once every trial has succeeded."""

    T: int
    m: int
    trials: tuple[int, ...] = (0,)
    restarts: int = 1
    s: int = 3
    support: tuple[int, ...] | None = None
    model: ModelConfig = field(default_factory=ModelConfig)
    steps: int = 1000
    lr: float = 1e-3
    weight_decay: float = 1e-4
    n_val: int = 10_000
    eval_every: int = 10
    success_acc: float = 0.99
    stop_when_all_succeed: bool = False
    attention_probe: int = 0
    dtype: str | None = "float32"
    num_threads: int | None = None

    def __post_init__(self) -> None:
        ts.check_sparsity(self.T, self.s)
        if self.support is not None:
            ts.check_support(self.T, self.support)
            if len(self.support) != self.s:
                raise ValueError(f"support has {len(self.support)} positions, s = {self.s}")
        if self.m < 1 or self.restarts < 1 or not self.trials:
            raise ValueError(f"need m >= 1, restarts >= 1 and >= 1 trial, got {self.m}, {self.restarts}, {self.trials}")

    @property
    def seeds(self) -> tuple[int, ...]:
        """Initialisation seed of every ensemble member, trial-major."""
        return tuple(_init_seed(t, r) for t in self.trials for r in range(self.restarts))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AndRun:
    """``history``: per evaluation ``{"step", "val_acc", "train_acc", "train_loss"}`` (per member, eval mode); ``supports`` and
    ``rejections`` per trial; ``best_val`` per member; ``attention``: the [CLS] attention rows of the probe
    samples ``(members, probe, heads, T + 1)`` at the end (if asked for)."""

    config: AndRunConfig
    history: list[dict[str, Any]]
    supports: list[tuple[int, ...]]
    rejections: list[int]
    best_val: np.ndarray
    attention: np.ndarray | None = None
    probe_bits: np.ndarray | None = None

    def trial_success(self) -> list[bool]:
        """Per trial: did any restart exceed ``success_acc`` at some evaluation."""
        R = self.config.restarts
        ok = self.best_val > self.config.success_acc
        return [bool(ok[i * R : (i + 1) * R].any()) for i in range(len(self.config.trials))]


def and_datasets(
    cfg: AndRunConfig,
) -> tuple[list[tuple[int, ...]], list[int], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per trial: the support, the rejections, training bits/labels ``(trials, m, T)``/``(trials, m)`` and validation
    bits/labels (``n_val``), from the generator ``default_rng([trial, 7])`` (support from ``random.Random(trial)``)."""
    supports, rejections, xs, ys, xv, yv = [], [], [], [], [], []
    for trial in cfg.trials:
        rng = np.random.default_rng([int(trial), 7])
        I = cfg.support or ts.random_support(cfg.T, cfg.s, random.Random(int(trial)))
        x, y, rej = ns.sample_identifiable_and(cfg.T, cfg.m, I, AND_P, rng)
        v = ns.random_inputs(cfg.T, cfg.n_val, rng, AND_P)
        supports.append(I)
        rejections.append(rej)
        xs.append(x)
        ys.append(y)
        xv.append(v)
        yv.append(ns.and_labels(v, I))
    return supports, rejections, np.stack(xs), np.stack(ys), np.stack(xv), np.stack(yv)


def _adamw(cfg: AndRunConfig | ParityRunConfig, desc: str) -> FitSchedule:
    """The optimisation of both tasks (App. A.3.1, docs/sparse_variable.md): ``cfg.steps`` AdamW updates at the
    constant learning rate ``cfg.lr`` with decoupled weight decay ``cfg.weight_decay``, evaluated every
    ``cfg.eval_every`` steps on ``cfg.num_threads`` threads; ``desc`` names the run on the progress bar."""
    return FitSchedule(
        cfg.steps,
        cfg.lr,
        "adamw",
        cfg.weight_decay,
        eval_every=cfg.eval_every,
        num_threads=cfg.num_threads,
        desc=desc,
    )


def train_and(cfg: AndRunConfig, options: RunOptions = DEFAULT_OPTIONS) -> AndRun:
    """Train the trials x restarts ensemble on its AND datasets (full batch), tracking validation accuracy.

    ``options`` (:class:`verify.runtime.options.RunOptions`): device, dtype (default ``cfg.dtype``, float32), the
    seed offset (shifts the trial seeds, hence the datasets and the initialisations), progress; with a checkpoint
    file the run checkpoints and resumes through :func:`verify.train.attention.fit` (dropout's generator, the history
    and the best accuracies included), ending with the result of an uninterrupted run."""
    cfg, setting = options.configure(cfg, "sparse-variable-and", seed_fields=("trials",))
    dev, dtype = setting.device, setting.dtype
    supports, rejections, x, y, xv, yv = and_datasets(cfg)
    R = cfg.restarts
    rep = lambda a: np.repeat(a, R, axis=0)  # noqa: E731 - trial-major, like cfg.seeds
    xt = torch.as_tensor(with_cls(rep(x)), device=dev)
    yt = torch.as_tensor(rep(y), device=dev)
    xvt = torch.as_tensor(with_cls(rep(xv)), device=dev)
    yvt = torch.as_tensor(rep(yv), device=dev)
    model = ClsEnsemble.init(attention_config(cfg.T, cfg.model), cfg.seeds, device=dev, dtype=dtype)
    torch.manual_seed(DROPOUT_SEED + int(cfg.seeds[0]))  # dropout masks come from torch's global generator
    history: list[dict[str, Any]] = []
    best = np.zeros(len(cfg.seeds))

    def evaluate(step: int) -> dict[str, Any]:
        acc = _accuracy(model, xvt, yvt)
        fit_acc = _accuracy(model, xt, yt)
        with torch.no_grad():
            loss = cls_cross_entropy(model(xt), yt).cpu().numpy()
        best[:] = np.maximum(best, acc)
        history.append(
            {"step": step, "val_acc": acc.tolist(), "train_acc": fit_acc.tolist(), "train_loss": loss.tolist()}
        )
        return history[-1]

    def stop(step: int, record: dict[str, Any]) -> bool:
        if not cfg.stop_when_all_succeed:
            return False
        ok = (best > cfg.success_acc).reshape(len(cfg.trials), R).any(axis=1)
        return bool(ok.all())

    schedule = _adamw(cfg, f"AND T={cfg.T} m={cfg.m}")
    hooks = FitHooks(
        loss_fn=cls_cross_entropy,
        evaluate=evaluate,
        stop=stop,
        **fit_checkpoint(
            cfg,
            {"history": history},
            extra=lambda: {"best": best.tolist()},
            restore_extra=lambda saved: best.__setitem__(slice(None), saved["best"]),
            dtype=setting.dtype_name,
        ),
    )
    with setting.precision():
        fit(model, lambda t: (xt, yt), schedule, options, seeds=cfg.seeds, hooks=hooks)
    run = AndRun(cfg, history, supports, rejections, best.copy())
    if cfg.attention_probe:
        probe = xv[:, : cfg.attention_probe]
        model.eval()
        with torch.no_grad():
            _, maps = model.to(torch.float64)(torch.as_tensor(with_cls(rep(probe)), device=dev), return_attention=True)
        run.attention = maps[0][:, :, :, -1, :].cpu().numpy()  # (S, probe, H, T + 1)
        run.probe_bits = probe
    return run


# --------------------------------------------------------------------------------------------- Fig. 4.2 sweep


@dataclass(frozen=True)
class SweepConfig:
    """Fig. 4.2: for every T, the cells ``m in ms`` (ascending) of ``trials x restarts`` runs; the threshold m(T)
    is the smallest m whose trial success rate is at least ``level`` (App. A.3.1: 40 trials, 5 restarts, 1000
    steps, success = validation accuracy > 0.99, threshold at 80 %). ``stop_at_threshold``: skip the larger m of a
    T once its threshold is found (success is taken as monotone in m)."""

    Ts: tuple[int, ...]
    ms: tuple[int, ...]
    trials: int = 40
    restarts: int = 5
    level: float = 0.8
    run: AndRunConfig = field(default_factory=lambda: AndRunConfig(T=100, m=50))
    stop_at_threshold: bool = True

    def __post_init__(self) -> None:
        if list(self.Ts) != sorted(set(self.Ts)) or list(self.ms) != sorted(set(self.ms)):
            raise ValueError(f"Ts and ms must be strictly increasing, got {self.Ts}, {self.ms}")
        if not 0 < self.level <= 1 or self.trials < 1 or self.restarts < 1:
            raise ValueError("need 0 < level <= 1, trials >= 1, restarts >= 1")


def cell_config(cfg: SweepConfig, T: int, m: int) -> AndRunConfig:
    """The run of one (T, m) cell of Fig. 4.2 (a unit of work for :mod:`verify.sweep`): ``cfg.trials`` trials with
    dataset seeds ``10^6 T + 10^3 m + i`` (cells never share data), ``cfg.restarts`` restarts each, random supports,
    stopping once every trial has succeeded."""
    trials = tuple(10**6 * T + 10**3 * m + i for i in range(cfg.trials))
    return replace(cfg.run, T=T, m=m, trials=trials, restarts=cfg.restarts, support=None, stop_when_all_succeed=True)


def and_cell(run_cfg: AndRunConfig, options: RunOptions = DEFAULT_OPTIONS) -> dict[str, Any]:
    """Train one cell; its trial success rate, the steps run and every member's best validation accuracy. A cell
    whose m admits no identifiable training set (App. A.3.1's rejection never accepts) counts as failed."""
    try:
        run = train_and(run_cfg, options)
    except ns.UnidentifiableSample:
        return {
            "T": run_cfg.T,
            "m": run_cfg.m,
            "success_rate": 0.0,
            "successes": 0,
            "steps": 0,
            "rejections": -1,
            "best_val": [],
            "unidentifiable": True,
        }
    ok = run.trial_success()
    return {
        "T": run_cfg.T,
        "m": run_cfg.m,
        "success_rate": float(np.mean(ok)),
        "successes": int(np.sum(ok)),
        "steps": int(run.history[-1]["step"]),
        "rejections": int(np.sum(run.rejections)),
        "best_val": run.best_val.tolist(),
        "unidentifiable": False,
    }


def thresholds_of(cfg: SweepConfig, cells: list[dict[str, Any]]) -> dict[int, float]:
    """m(T) for every T from finished cells (:func:`numerics.sparse_variable.sample_threshold` over the m run)."""
    out = {}
    for T in cfg.Ts:
        done = sorted((c["m"], c["success_rate"]) for c in cells if c["T"] == T)
        out[T] = ns.sample_threshold([m for m, _ in done], [r for _, r in done], cfg.level)
    return out


def and_threshold_sweep(
    cfg: SweepConfig,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    on_cell: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run the sweep in this process, cell by cell (m ascending per T, stopping at the threshold when
    ``cfg.stop_at_threshold``); returns ``{"cells": [...], "thresholds": {T: m(T)}}`` (inf when no m passed)."""
    cells = []
    for T in cfg.Ts:
        for m in cfg.ms:
            cell = and_cell(cell_config(cfg, T, m), options)
            cells.append(cell)
            if on_cell is not None:
                on_cell(cell)
            if cfg.stop_at_threshold and cell["success_rate"] >= cfg.level:
                break
    return {"cells": cells, "thresholds": thresholds_of(cfg, cells)}


# --------------------------------------------------------------------------------------------- Fig. 4.4 parity


@dataclass(frozen=True)
class ParityRunConfig:
    """Streaming training on the parity of ``s`` fixed positions of T uniform bits (App. A.3.2: fresh batches of
    2048, no train/validation split; the architecture of the AND experiments). Accuracy and loss on a fixed test
    set of ``n_test`` contexts every ``eval_every`` steps."""

    T: int
    s: int = 3
    support: tuple[int, ...] | None = None
    seeds: tuple[int, ...] = (0,)
    model: ModelConfig = field(default_factory=ModelConfig)
    steps: int = 2000
    batch: int = 2048
    lr: float = 1e-3
    weight_decay: float = 1e-4
    n_test: int = 4096
    eval_every: int = 50
    dtype: str | None = "float32"
    num_threads: int | None = None

    def __post_init__(self) -> None:
        ts.check_sparsity(self.T, self.s)
        if self.support is not None and len(ts.check_support(self.T, self.support)) != self.s:
            raise ValueError(f"support must have s = {self.s} positions")

    @property
    def positions(self) -> tuple[int, ...]:
        """The relevant positions (default: the first s)."""
        return self.support or tuple(range(self.s))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ParityRun:
    """``history``: per evaluation ``{"step", "test_acc", "test_loss", "train_loss"}`` (per seed)."""

    config: ParityRunConfig
    history: list[dict[str, Any]]


def train_parity(cfg: ParityRunConfig, options: RunOptions = DEFAULT_OPTIONS) -> ParityRun:
    """Train the seed ensemble on fresh parity batches (each seed its own stream ``default_rng([seed, 3])``).

    ``options``: as :func:`train_and` (the offset shifts ``cfg.seeds``); with a checkpoint file the run checkpoints
    and resumes through :func:`verify.train.attention.fit` (the batch streams, dropout's generator, the last training
    loss and the history included)."""
    cfg, setting = options.configure(cfg, "sparse-variable-parity")
    dev, dtype = setting.device, setting.dtype
    S, I = len(cfg.seeds), list(cfg.positions)
    model = ClsEnsemble.init(attention_config(cfg.T, cfg.model), cfg.seeds, device=dev, dtype=dtype)
    torch.manual_seed(DROPOUT_SEED + int(cfg.seeds[0]))  # dropout masks come from torch's global generator
    streams = [np.random.default_rng([int(s), 3]) for s in cfg.seeds]
    test = ns.random_inputs(cfg.T, cfg.n_test, np.random.default_rng(10_000))
    xt = torch.as_tensor(with_cls(test), device=dev)
    yt = torch.as_tensor(test[:, I].sum(1) % 2, device=dev).expand(S, -1)
    last_loss = [math.nan] * S
    history: list[dict[str, Any]] = []

    def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        x = np.stack([ns.random_inputs(cfg.T, cfg.batch, rng) for rng in streams])
        return torch.as_tensor(with_cls(x), device=dev), torch.as_tensor(x[:, :, I].sum(-1) % 2, device=dev)

    def loss_fn(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        loss = cls_cross_entropy(logits, y)
        last_loss[:] = loss.detach().cpu().tolist()
        return loss

    def evaluate(step: int) -> dict[str, Any]:
        model.eval()
        with torch.no_grad():
            logits = model(xt.expand(S, -1, -1))
            loss = cls_cross_entropy(logits, yt).cpu().numpy()
            acc = (logits[:, :, -1].argmax(-1) == yt).double().mean(1).cpu().numpy()
        history.append(
            {"step": step, "test_acc": acc.tolist(), "test_loss": loss.tolist(), "train_loss": list(last_loss)}
        )
        return history[-1]

    schedule = _adamw(cfg, f"parity T={cfg.T}")
    hooks = FitHooks(
        loss_fn=loss_fn,
        evaluate=evaluate,
        **fit_checkpoint(cfg, {"history": history, "last_loss": last_loss}, streams, dtype=setting.dtype_name),
    )
    with setting.precision():
        fit(model, batch, schedule, options, seeds=cfg.seeds, hooks=hooks)
    return ParityRun(cfg, history)
