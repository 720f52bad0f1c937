r"""Transformers and polynomial networks on k-sum mod p trained the way Shi thesis Sec. 4.5 / App. C.10 does:
an even (50/50) train/test split, AdamW (docs/modular_transformer.md).

**Transformer (Fig. 4.3, Fig. 4.4).** :class:`SumTransformer` is the shared attention model
(:class:`verify.train.attention.AttentionEnsemble`, S seeds batched) on the sequences ``a_1 ... a_k =`` of
:func:`numerics.modular_transformer.sum_sequences`; the answer is read from the logits of the last position ("="),
as in the thesis's code base (github.com/Sea-Snell/grokking, which it names in App. C.10.1). The thesis's m-head
layer :math:`W^P(W_h^{V\top} E\,\mathrm{softmax}(E^\top W_h^K W_h^{Q\top} E))_h` is ``AttentionEnsemble``'s
attention (``l{i}.q``, ``l{i}.k``, ``l{i}.v``, ``l{i}.o`` are :math:`W^Q, W^K, W^V, W^P`). One layer for Fig. 4.3, two
for Fig. 4.4. :class:`SumTransformer` adds what the shared module lacks for Li et al.'s ablation: residual
connections that can be switched off (LayerNorm already can).

Every seed has its own random even split (:func:`numerics.modular_transformer.even_split` with the seed) and its own
minibatch stream; the loss is the sum over seeds of each seed's mean cross-entropy at the answer position, and AdamW
acts entry by entry, so each seed follows the trajectory it would follow alone. The step loop is
:func:`verify.runtime.loop.run_loop` with the thesis's AdamW betas (0.9, 0.98) and 10 linear warm-up steps (App. C.10.1).

**Polynomial network (Figs. 4.1, 4.2).** :func:`train_polynomial_split` trains the network of Eq. 4.2 on the
training half with :func:`verify.train.polynomial.train` (unchanged) and measures it on the test half and on all :math:`p^k`
points.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from numerics.margins import HomogeneousNetwork
from numerics.modular import ModularTask
from numerics.modular_transformer import SplitModularTask, attention_score_matrix, even_split, sum_sequences
from theory._checks import InputError, check_odd_modulus, check_positive_int
from verify.runtime.checkpoint import Checkpoint, Evaluations, TrainerState, resume
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.loop import Bar, run_loop, torch_threads
from verify.runtime.memory import RunEstimate
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions
from verify.train.attention import AttentionConfig, AttentionEnsemble, check_memory
from verify.train.homogeneous import HomogeneousEnsemble
from verify.train.polynomial import TrainConfig, TrainResult, ensemble_metrics, train

__all__ = [
    "PolySplitRun",
    "SumTransformer",
    "SumTransformerConfig",
    "TransformerRun",
    "answer_cross_entropy",
    "score_matrices",
    "train_polynomial_split",
    "train_sum_transformer",
    "warmup_lr",
]

DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclass(frozen=True)
class SumTransformerConfig:
    """One seed ensemble of transformers trained on an even split of k-sum mod p.

    Parameters
    ----------
    p, k : int
        Odd modulus >= 3 and number of summands >= 1 (sequence length k + 1).
    layers, d, heads, head_width, mlp : int
        Architecture (``AttentionConfig``): residual width d, heads of width ``head_width`` (None = d // heads),
        a GELU MLP of width ``mlp`` after each attention layer (0 = none).
    layer_norm, residual : bool
        Parameter-free pre-LayerNorm on every block and the readout; residual connections around every block.
    positions : str
        ``"absolute"`` (learned, as in the thesis's code base), ``"relative"`` or ``"none"``.
    init_std : float
        Std of every initial weight (positive, finite).
    lr, weight_decay, betas, warmup_steps : AdamW (App. C.10.1: betas (0.9, 0.98), 10 warm-up steps).
    steps : int
        Number of updates (an early stop may end the run sooner).
    batch_size : int or None
        Points per update, drawn with replacement from the seed's training half; None = the whole half.
    train_fraction : float
        Share of the p^k points in the training half (0.5: the thesis's even split).
    shuffle_labels : bool
        Train on a random permutation of the training labels (negative control); validation keeps true labels.
    seeds : tuple of int
        One network, one split and one batch stream per seed.
    eval_every : int
        Train and validation accuracy of every seed are recorded every that many steps (and at the end).
    stop_train_acc, stop_val_acc : float in (0, 1] or None
        With both set, stop once every seed has reached both (the grokking delay is then measured).
    stop_hold : int
        0: the early stop above needs each threshold reached at some evaluation; h >= 1: it needs the training
        threshold reached at some evaluation and the validation threshold held at each of the last h evaluations
        (every seed has grokked and stayed there; docs/modular_transformer.md).
    dtype : str
        Training dtype (``float32`` or ``float64``); the diagnostics are computed in float64.
    eval_chunk : int
        Points per evaluation chunk (bounded memory at full scale).
    num_threads : int or None
        torch CPU threads during the run.
    nan_check_every : int
        NaN/inf guard interval.
    """

    p: int
    k: int
    layers: int = 1
    d: int = 32
    heads: int = 4
    head_width: int | None = 8
    mlp: int = 128
    layer_norm: bool = True
    residual: bool = True
    positions: str = "absolute"
    init_std: float = 0.02
    lr: float = 1e-3
    weight_decay: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.98)
    warmup_steps: int = 10
    steps: int = 1000
    batch_size: int | None = None
    train_fraction: float = 0.5
    shuffle_labels: bool = False
    seeds: tuple[int, ...] = (0, 1, 2)
    eval_every: int = 50
    stop_train_acc: float | None = None
    stop_val_acc: float | None = None
    stop_hold: int = 0
    dtype: str = "float32"
    eval_chunk: int = 8192
    num_threads: int | None = 1
    nan_check_every: int = 50

    def __post_init__(self) -> None:
        check_odd_modulus(self.p, source="Shi Sec. 4.5")
        check_positive_int(self.k, "k")
        object.__setattr__(self, "seeds", tuple(int(s) for s in self.seeds))
        object.__setattr__(self, "betas", tuple(float(b) for b in self.betas))
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise InputError(f"seeds must be a non-empty tuple of distinct integers, got {self.seeds!r}", param="seeds")
        for name in ("steps", "warmup_steps", "stop_hold"):
            check_positive_int(getattr(self, name), name, minimum=0)
        for name in ("eval_every", "eval_chunk", "nan_check_every"):
            check_positive_int(getattr(self, name), name)
        if self.batch_size is not None:
            check_positive_int(self.batch_size, "batch_size")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise InputError(f"lr must be positive and finite, got {self.lr!r}", param="lr")
        if not (self.weight_decay >= 0 and math.isfinite(self.weight_decay)):
            raise InputError(f"weight_decay must be finite and >= 0, got {self.weight_decay!r}", param="weight_decay")
        if not (self.init_std > 0 and math.isfinite(self.init_std)):
            raise InputError(f"init_std must be positive and finite, got {self.init_std!r}", param="init_std")
        if self.head_width is not None:
            check_positive_int(self.head_width, "head_width")
        check_positive_int(self.mlp, "mlp", minimum=0)
        if len(self.betas) != 2 or not all(0 <= b < 1 for b in self.betas):
            raise InputError(f"betas must be two numbers in [0, 1), got {self.betas!r}", param="betas")
        if not 0 < self.train_fraction < 1:
            raise InputError(f"train_fraction must lie in (0, 1), got {self.train_fraction!r}", param="train_fraction")
        if self.dtype not in DTYPES:
            raise InputError(f"dtype must be one of {sorted(DTYPES)}, got {self.dtype!r}", param="dtype")
        if (self.stop_train_acc is None) != (self.stop_val_acc is None):
            raise InputError("set both stop_train_acc and stop_val_acc, or neither", param="stop_val_acc")
        for name in ("stop_train_acc", "stop_val_acc"):
            value = getattr(self, name)
            if value is not None and not 0 < value <= 1:
                raise InputError(f"{name} is an accuracy and must lie in (0, 1], got {value!r}", param=name)
        self.attention_config()  # validates the architecture fields

    def attention_config(self) -> AttentionConfig:
        """The shared module's configuration: vocabulary p numbers + "=", output p classes."""
        return AttentionConfig(
            vocab=self.p + 1,
            max_len=self.k + 1,
            d=self.d,
            layers=self.layers,
            heads=self.heads,
            positions=self.positions,
            mlp=self.mlp,
            out=self.p,
            layer_norm=self.layer_norm,
            init_std=self.init_std,
            head_width=self.head_width,
        )

    def replace(self, **changes: Any) -> SumTransformerConfig:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


class SumTransformer(AttentionEnsemble):
    """:class:`verify.train.attention.AttentionEnsemble` with switchable residual connections (Li et al.'s ablation).

    With ``residual=True`` it is exactly the shared model. With ``residual=False`` every block replaces the stream
    instead of adding to it: ``z <- Attn(norm(z))`` and ``z <- MLP(norm(z))``.
    """

    def __init__(self, cfg: AttentionConfig, params: dict[str, torch.Tensor], residual: bool = True) -> None:
        super().__init__(cfg, params)
        self.residual = bool(residual)

    @classmethod
    def create(
        cls,
        cfg: AttentionConfig,
        seeds: tuple[int, ...],
        residual: bool = True,
        device: torch.device | str = "cpu",
        dtype: torch.dtype = torch.float32,
    ) -> SumTransformer:
        """Fresh networks, one per seed, with the shared module's initialisation (``AttentionEnsemble.init``)."""
        base = AttentionEnsemble.init(cfg, seeds, device=device, dtype=dtype)
        return cls(cfg, {n: base.p(n).detach() for n in base.names()}, residual=residual)

    def forward(
        self, tokens: torch.Tensor, *, return_attention: bool = False, use_sdpa: bool = True
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``(S, B, T, out)`` (and the attention maps), as :meth:`AttentionEnsemble.forward`."""
        if self.residual:
            return super().forward(tokens, return_attention=return_attention, use_sdpa=use_sdpa)
        S = self.n_seeds
        if tokens.ndim == 2:
            tokens = tokens.unsqueeze(0).expand(S, *tokens.shape)
        seed_idx = torch.arange(S, device=tokens.device)[:, None, None]
        z = self.p("embed")[seed_idx, tokens]
        if self.cfg.positions == "absolute":
            z = z + self.p("pos")[:, None, : tokens.shape[-1]]
        maps: list[torch.Tensor] = []
        for i in range(self.cfg.layers):
            z, m = self.attention(i, self._norm(z), need_maps=return_attention, use_sdpa=use_sdpa)
            if m is not None:
                maps.append(m)
            if self.cfg.mlp:
                z = self.mlp_block(i, z)
        logits = torch.einsum("sbtd,sdo->sbto", self._norm(z), self.p("readout")) + self.p("readout_b")[:, None, None]
        return (logits, maps) if return_attention else logits

    def _mlp(self, i: int, z: torch.Tensor) -> torch.Tensor:
        """Layer ``i``'s GELU MLP of ``norm(z)`` for ``z`` ``(S, B, d)`` (one position per sequence)."""
        h = F.gelu(torch.baddbmm(self.p(f"l{i}.mlp_in_b")[:, None], self._norm(z), self.p(f"l{i}.mlp_in")))
        return torch.baddbmm(self.p(f"l{i}.mlp_out_b")[:, None], h, self.p(f"l{i}.mlp_out"))

    def answer_logits(self, tokens: torch.Tensor) -> torch.Tensor:
        """The logits at the last position ("=") only, ``(S, B, out)``: ``forward(tokens)[:, :, -1]`` computed without
        the queries, MLPs and readouts of the other positions in the last layer (no answer depends on them; the
        causal last query attends to every position), with one batched product per projection. The same function
        (equal up to round-off; tests/verify/test_modular_transformer.py), about a third of the work for one layer;
        the training loss and the accuracies use it. Relative positions fall back to :meth:`forward`."""
        S = self.n_seeds
        if tokens.ndim == 2:
            tokens = tokens.unsqueeze(0).expand(S, *tokens.shape)
        if self.cfg.positions == "relative":
            return self.forward(tokens)[:, :, -1]  # type: ignore[index]
        B, T = tokens.shape[1:]
        z = self.p("embed")[torch.arange(S, device=tokens.device)[:, None, None], tokens]
        if self.cfg.positions == "absolute":
            z = z + self.p("pos")[:, None, :T]
        z = self._drop(z)
        last = self.cfg.layers - 1
        for i in range(last):
            a, _ = self.attention(i, self._norm(z))
            z = z + self._drop(a) if self.residual else a
            if self.cfg.mlp:
                h = self.mlp_block(i, z)
                z = z + self._drop(h) if self.residual else h
        H, e, d = self.cfg.heads, self.cfg.head_dim, self.cfg.d
        x = self._norm(z)
        # keys and values of every position in one product, the query of the last position in another
        wkv = torch.cat([self.p(f"l{last}.k"), self.p(f"l{last}.v")], 1).permute(0, 2, 1, 3).reshape(S, d, 2 * H * e)
        kv = torch.bmm(x.reshape(S, B * T, d), wkv).view(S, B, T, 2, H, e)
        q = torch.bmm(x[:, :, -1], self.p(f"l{last}.q").permute(0, 2, 1, 3).reshape(S, d, H * e)).view(S, B, 1, H, e)
        # one query against T keys per head: products and sums beat batches of tiny matrix products here
        w = torch.softmax((q * kv[:, :, :, 0]).sum(-1) / math.sqrt(e), dim=2)  # (S, B, T, H)
        if self.training and self.cfg.dropout:
            w = F.dropout(w, self.cfg.dropout, True)
        heads = (w.unsqueeze(-1) * kv[:, :, :, 1]).sum(2)  # (S, B, H, e)
        a = torch.bmm(heads.reshape(S, B, H * e), self.p(f"l{last}.o").reshape(S, H * e, d))
        z = z[:, :, -1] + self._drop(a) if self.residual else a
        if self.cfg.mlp:
            z = z + self._drop(self._mlp(last, z)) if self.residual else self._mlp(last, z)
        return torch.baddbmm(self.p("readout_b")[:, None], self._norm(z), self.p("readout"))


def answer_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Per-seed mean cross-entropy of the answer (last position): logits ``(S, B, T, C)`` of every position, or
    ``(S, B, C)`` of the answer alone (:meth:`SumTransformer.answer_logits`); targets ``(S, B)``."""
    if logits.ndim == 4:
        logits = logits[:, :, -1]
    S, B, C = logits.shape
    return F.cross_entropy(logits.reshape(S * B, C), targets.reshape(S * B), reduction="none").view(S, B).mean(1)


def warmup_lr(lr: float, warmup_steps: int, step: int) -> float:
    """Linear warm-up of App. C.10.1 (and the thesis's code base): ``lr * min(1, (step + 1) / warmup_steps)``."""
    return lr * min(1.0, (step + 1) / warmup_steps) if warmup_steps else lr


@dataclass
class TransformerRun:
    """Outcome of :func:`train_sum_transformer`.

    Attributes
    ----------
    config : SumTransformerConfig
    history : dict
        ``step`` (list) and per-evaluation, per-seed lists ``train_acc``, ``val_acc``, ``train_loss``.
    params : dict of str to float64 CPU tensors
        Final weights, ``(S, ...)`` under the shared module's names.
    score_matrices : ndarray (S, layers, H, p, p)
        Each head's :math:`E^\\top W^K W^{Q\\top} E` on the number tokens (float64).
    initial_score_matrices : ndarray (S, layers, H, p, p)
        The same at initialisation.
    steps_done : int
    stopped_early : bool
    wall_time : float
    """

    config: SumTransformerConfig
    history: dict[str, list[Any]]
    params: dict[str, torch.Tensor]
    score_matrices: np.ndarray
    initial_score_matrices: np.ndarray
    steps_done: int
    stopped_early: bool
    wall_time: float

    def curve(self, name: str) -> np.ndarray:
        """A per-seed history as an array (n_evals, S)."""
        return np.asarray(self.history[name], dtype=np.float64)


def score_matrices(params: dict[str, torch.Tensor], layers: int, p: int) -> np.ndarray:
    """Every head's :math:`E^\\top W^K W^{Q\\top} E` on the number tokens, ``(S, layers, H, p, p)`` float64
    (:func:`numerics.modular_transformer.attention_score_matrix` on the ensemble's parameters)."""
    embed = params["embed"].detach().to("cpu", torch.float64).numpy()
    per_layer = [
        attention_score_matrix(
            embed,
            params[f"l{i}.q"].detach().to("cpu", torch.float64).numpy(),
            params[f"l{i}.k"].detach().to("cpu", torch.float64).numpy(),
            p,
        )
        for i in range(layers)
    ]
    return np.stack(per_layer, axis=1)


def _split_data(cfg: SumTransformerConfig, device: torch.device) -> tuple[torch.Tensor, ...]:
    """Per-seed training and validation tokens and labels, ``(S, n_half, T)`` and ``(S, n_half)``."""
    tokens, labels = sum_sequences(cfg.p, cfg.k)
    tr_idx, va_idx = zip(*(even_split(len(labels), s, cfg.train_fraction) for s in cfg.seeds))
    tr, va = np.stack(tr_idx), np.stack(va_idx)
    y_tr = labels[tr]
    if cfg.shuffle_labels:
        y_tr = np.stack([np.random.default_rng([s, 1]).permutation(row) for s, row in zip(cfg.seeds, y_tr)])
    t = partial(torch.as_tensor, dtype=torch.int64, device=device)
    return t(tokens[tr]), t(y_tr), t(tokens[va]), t(labels[va])


@torch.no_grad()
def _accuracy(
    model: SumTransformer, tokens: torch.Tensor, labels: torch.Tensor, chunk: int
) -> tuple[list[float], list[float]]:
    """Per-seed accuracy and mean cross-entropy of the answer over all points, in chunks."""
    S, n = labels.shape
    correct = torch.zeros(S, dtype=torch.float64, device=labels.device)
    ce = torch.zeros(S, dtype=torch.float64, device=labels.device)
    for start in range(0, n, chunk):
        logits = model.answer_logits(tokens[:, start : start + chunk])
        y = labels[:, start : start + chunk]
        correct += (logits.argmax(-1) == y).sum(1).double()
        ce += answer_cross_entropy(logits, y).double() * y.shape[1]
    return (correct / n).tolist(), (ce / n).tolist()


def _update(
    model: SumTransformer,
    opt: torch.optim.Optimizer,
    train: tuple[torch.Tensor, torch.Tensor],
    samplers: list[torch.Generator],
    batch_size: int | None,
    estimate: RunEstimate,
) -> Callable[[int], torch.Tensor]:
    """The update of step t: one AdamW step on the full training half, or on ``batch_size`` points per seed drawn
    from that seed's sampler; returns the per-seed loss."""
    x_tr, y_tr = train
    S, n_train = y_tr.shape
    seed_idx = torch.arange(S, device=x_tr.device)[:, None]

    def step_fn(t: int) -> torch.Tensor:
        model.train()
        if batch_size is None:
            x, y = x_tr, y_tr
        else:
            idx = torch.stack([torch.randint(n_train, (batch_size,), generator=g) for g in samplers]).to(x_tr.device)
            x, y = x_tr[seed_idx, idx], y_tr[seed_idx, idx]
        estimate(t, x)  # memory check before the first update, time estimate of a long run after a few
        opt.zero_grad(set_to_none=True)
        loss = answer_cross_entropy(model.answer_logits(x), y)
        loss.sum().backward()
        opt.step()
        model.eval()
        return loss.detach()

    return step_fn


def _evaluation(
    model: SumTransformer,
    cfg: SumTransformerConfig,
    data: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor],
    history: dict[str, list[Any]],
    callback: Callable[[int, dict[str, Any]], None] | None,
) -> tuple[Callable[[int], dict[str, Any]], Callable[[int, dict[str, Any]], bool]]:
    """The evaluation hook (accuracy on both halves, training loss, appended to ``history``) and the early stop
    (every seed has reached ``stop_train_acc`` and ``stop_val_acc`` at some evaluation)."""
    x_tr, y_tr, x_va, y_va = data

    def evaluate_fn(t: int) -> dict[str, Any]:
        model.eval()
        acc_tr, ce_tr = _accuracy(model, x_tr, y_tr, cfg.eval_chunk)
        acc_va, _ = _accuracy(model, x_va, y_va, cfg.eval_chunk)
        rec = {"step": t, "train_acc": acc_tr, "val_acc": acc_va, "train_loss": ce_tr}
        for key, value in rec.items():
            history[key].append(value)
        if callback is not None:
            callback(t, rec)
        return rec

    def stop(t: int, rec: dict[str, Any]) -> bool:
        if cfg.stop_train_acc is None or cfg.stop_val_acc is None:
            return False
        train_hit = np.max(np.asarray(history["train_acc"]), axis=0) >= cfg.stop_train_acc
        val = np.asarray(history["val_acc"])
        if cfg.stop_hold:
            val_hit = (len(val) >= cfg.stop_hold) & np.all(val[-cfg.stop_hold :] >= cfg.stop_val_acc, axis=0)
        else:
            val_hit = np.max(val, axis=0) >= cfg.stop_val_acc
        return bool((train_hit & val_hit).all())

    return evaluate_fn, stop


def train_sum_transformer(
    cfg: SumTransformerConfig,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    callback: Callable[[int, dict[str, Any]], None] | None = None,
) -> TransformerRun:
    """Train ``cfg.seeds`` transformers on their even splits of k-sum mod p (module docstring).

    ``options`` (:class:`verify.runtime.options.RunOptions`): device, dtype (default ``cfg.dtype``, float32), the
    seed offset (shifts ``cfg.seeds``: initialisations, splits and batch streams), progress, the memory-check
    override. With a checkpoint file the run saves the parameters, AdamW's state, the per-seed batch samplers and
    the history every ``options.checkpoint_every`` steps, every ``CHECKPOINT_SECONDS``, at the end, on an early stop
    and on Ctrl-C, and resumes from a trusted checkpoint of the same configuration
    (:func:`verify.runtime.checkpoint.resume`; ``num_threads``, ``eval_chunk`` and ``nan_check_every`` may differ)
    with the result of an uninterrupted run. ``callback`` is not called again for evaluations made before the
    checkpoint.

    Before the first update the attention memory estimate of the training batch is checked against the device's
    free memory, and a run whose first updates predict more than a minute prints its estimate
    (:class:`verify.runtime.memory.RunEstimate`).

    Raises
    ------
    verify.runtime.divergence.TrainingDiverged
        When a seed's loss or weights become NaN/inf.
    verify.runtime.memory.InsufficientMemoryError
        When the estimate exceeds the usable free memory (``RunOptions.ignore_memory_check`` overrides).
    """
    t0 = time.perf_counter()
    cfg, setting = options.configure(cfg, "sum-transformer")
    dev, dtype = setting.device, setting.dtype
    acfg = cfg.attention_config()
    model = SumTransformer.create(acfg, cfg.seeds, residual=cfg.residual, device=dev, dtype=dtype)
    initial = score_matrices(model.state(), cfg.layers, cfg.p)
    x_tr, y_tr, x_va, y_va = _split_data(cfg, dev)
    S = y_tr.shape[0]
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay)
    samplers = [torch.Generator(device="cpu").manual_seed(int(s)) for s in cfg.seeds]  # one batch stream per seed
    history: dict[str, list[Any]] = {"step": [], "train_acc": [], "val_acc": [], "train_loss": []}
    estimate = RunEstimate(
        cfg.steps,
        S,
        f"transformer k={cfg.k} p={cfg.p}",
        check=lambda inputs: check_memory(model, inputs, options.ignore_memory_check),
        eval_every=cfg.eval_every,
    )

    step_fn = _update(model, opt, (x_tr, y_tr), samplers, cfg.batch_size, estimate)
    evaluate_fn, stop = _evaluation(model, cfg, (x_tr, y_tr, x_va, y_va), history, callback)

    guard = NonFiniteGuard(
        cfg.seeds,
        "sum-transformer",
        "lower lr or raise warmup_steps",
        every=cfg.nan_check_every,
        weights=dict(model.named_parameters()),
    )
    evaluations = Evaluations(evaluate_fn)
    trainer = TrainerState(
        dict(model.state_dict()),
        opt,
        generators=samplers,
        global_rng=True,  # dropout, if the architecture has any
        records={"history": history},
        evaluations=evaluations,
    )
    ckpt = Checkpoint.for_run(
        options,
        setting,
        "sum_transformer",
        cfg,
        cfg.steps,
        resumable=frozenset({"num_threads", "eval_chunk", "nan_check_every"}),
    )
    with torch_threads(cfg.num_threads), setting.precision():
        start = resume(ckpt, trainer, options.checkpoint_every)
        end = run_loop(
            step_fn,
            cfg.steps,
            evaluate=evaluations,
            eval_every=cfg.eval_every,
            stop=stop,
            optimizer=opt,
            lr_at=partial(warmup_lr, cfg.lr, cfg.warmup_steps),
            guard=guard,
            resumption=start,
            bar=Bar(
                enabled=options.progress,
                desc=f"transformer k={cfg.k} p={cfg.p}",
                postfix=lambda rec: {"train": f"{min(rec['train_acc']):.2f}", "val": f"{min(rec['val_acc']):.2f}"},
            ),
        )
    params = model.state()
    return TransformerRun(
        config=cfg,
        history=history,
        params=params,
        score_matrices=score_matrices(params, cfg.layers, cfg.p),
        initial_score_matrices=initial,
        steps_done=end.step,
        stopped_early=end.stopped,
        wall_time=time.perf_counter() - t0,
    )


# ------------------------------------------------------------------------------------------------ polynomial network


@dataclass
class PolySplitRun:
    """Outcome of :func:`train_polynomial_split`.

    Attributes
    ----------
    result : verify.train.polynomial.TrainResult
        The trainer's result on the training half (history, final networks, one per seed).
    initial : list of HomogeneousNetwork
        The networks at initialisation (same seeds and init as the trainer's).
    train_indices, test_indices : ndarray
        The split (point indices of :class:`numerics.modular.ModularTask`).
    test_accuracy, all_accuracy, all_normalized_margin : list of float
        Per seed: accuracy on the test half and on all p^k points, and the normalized margin
        :math:`h(\\theta)/\\|\\theta\\|_{2,k+1}^{k+1}` over all p^k points.
    test_history : dict
        ``step`` and per-seed ``test_acc`` at every evaluation of the trainer (the test half is never trained on).
    """

    result: TrainResult
    initial: list[HomogeneousNetwork]
    train_indices: np.ndarray
    test_indices: np.ndarray
    test_accuracy: list[float]
    all_accuracy: list[float]
    all_normalized_margin: list[float]
    test_history: dict[str, list[Any]]


def train_polynomial_split(
    p: int,
    k: int,
    width: int,
    config: TrainConfig,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    split_seed: int = 0,
    train_fraction: float = 0.5,
) -> PolySplitRun:
    """Train the k-input polynomial network (Shi Eq. 4.2) of width ``width`` on one even split of k-sum mod p.

    Every seed of ``config`` trains on the same training half (split ``split_seed``) with :func:`verify.train.polynomial.train`;
    the test accuracy is recorded at every evaluation (in the evaluation records, so a checkpoint keeps it), and the
    final networks are measured on the test half and on
    the whole dataset, all with :func:`verify.train.polynomial.ensemble_metrics` on the device (float64, chunked).
    ``options`` are :func:`verify.train.polynomial.train`'s (the seed offset shifts the seeds, not the split).
    """
    full = ModularTask(p, k)
    tr, te = even_split(full.n_points, split_seed, train_fraction)
    train_task = SplitModularTask(p, k, tuple(tr))
    dev = options.resolved_device()
    inputs, labels = full.batch(0, full.n_points)
    as_idx = partial(torch.as_tensor, dtype=torch.int64, device=dev)
    x_all, y_all = as_idx(inputs), as_idx(labels)
    x_te, y_te = x_all[as_idx(te)], y_all[as_idx(te)]
    init = HomogeneousEnsemble.from_seeds(
        options.seeds(config.seeds),
        width=width,
        n_blocks=k,
        block_size=p,
        n_classes=p,
        degree=k,
        init_std=config.init_std,
    ).networks()

    def track(step: int, model: HomogeneousEnsemble, record: dict[str, Any]) -> bool:
        # Kept in the evaluation record itself, so a checkpoint carries it and a resumed run keeps the earlier steps.
        if "test_acc" not in record:
            record["test_acc"] = ensemble_metrics(model, x_te, y_te)["accuracy"]
        return False

    result = train(train_task, k, width, config, options, callback=track)
    tracked = [rec for rec in result.history if "test_acc" in rec]
    test_history = {"step": [rec["step"] for rec in tracked], "test_acc": [rec["test_acc"] for rec in tracked]}
    final = HomogeneousEnsemble.from_networks(result.networks, device=dev)
    test_rep, all_rep = ensemble_metrics(final, x_te, y_te), ensemble_metrics(final, x_all, y_all)
    return PolySplitRun(
        result=result,
        initial=init,
        train_indices=tr,
        test_indices=te,
        test_accuracy=list(test_rep["accuracy"]),
        all_accuracy=list(all_rep["accuracy"]),
        all_normalized_margin=list(all_rep["normalized_margin"]),
        test_history=test_history,
    )
