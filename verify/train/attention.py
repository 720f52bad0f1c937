r"""Causal softmax attention for seed ensembles: the one attention model of the toolkit (docs/attention.md).

:class:`AttentionEnsemble` holds S independent decoder-only transformers as batched parameters with a leading
seed axis (as :class:`verify.train.homogeneous.HomogeneousEnsemble` does for polynomial networks). One network is

.. math:: \mathrm{TF}(x) = R \circ (\mathrm{MLP}_L + I) \circ (\mathrm{Attn}_L + I) \circ \dots \circ
          (\mathrm{Attn}_1 + I)(\mathrm{embed}(x)),

(Edelman thesis Eqs. (8.4)-(8.5); the MLP blocks are optional), with H heads per layer,

.. math:: \mathrm{Attn}(z) = \sum_h \mathrm{softmax}(\mathrm{mask}(A^h))\, z W_V^h W_O^h, \qquad
          A^h_{ij} = \frac{(z_i W_Q^h)(z_j W_K^h + r^h_{i-j})^\top}{\sqrt{d_h}},

where ``mask`` sets :math:`A_{ij} = -\infty` for j > i (causal) and :math:`r^h_{i-j}` is a learned relative
position embedding (Shaw et al. 2018; the thesis's :math:`v_{i-j+1}`) when ``positions="relative"``; with
``positions="absolute"`` a learned :math:`p_i` is added to the token embedding instead, and there is no
:math:`r` term. ``embed`` is a learned table ``(V, d)``; R is an affine readout ``d -> out``. There is no
dropout unless ``dropout > 0`` (then on the attention weights and the residual branches, in training mode), and
an optional parameter-free LayerNorm before each block.

Scores use :func:`torch.nn.functional.scaled_dot_product_attention` when no relative term is needed and the
attention maps are not requested; otherwise they are formed explicitly (same values; a test checks it). The
maps are returned by ``forward(..., return_attention=True)`` as one tensor ``(S, B, H, T, T)`` per layer.

:func:`fit` trains an ensemble on next-token cross-entropy through :func:`verify.runtime.loop.run_loop`. Before the
first step it compares :func:`memory_estimate` for the first batch's shape with the device's free memory (and
refuses with :class:`verify.runtime.memory.InsufficientMemoryError` unless ``RunOptions.ignore_memory_check``); a
run whose first ``PROBE_STEPS`` updates predict more than a minute prints its memory and time estimate on stderr.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import torch
import torch.nn.functional as F

from verify.runtime.checkpoint import Checkpoint, TrainerState, resume
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.loop import Bar, LoopEnd, run_loop, stack_seeds, torch_threads
from verify.runtime.memory import OVERRIDE_HINT, RunEstimate, check_free_memory
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions

__all__ = [
    "AttentionConfig",
    "AttentionEnsemble",
    "FitHooks",
    "FitSchedule",
    "check_memory",
    "fit",
    "init_params",
    "memory_estimate",
    "per_seed_cross_entropy",
    "relative_scores",
    "step_multiply_adds",
]

POSITIONS = ("relative", "absolute", "none")
OPTIMIZERS = ("adamw", "adam", "sgd")


@dataclass(frozen=True)
class AttentionConfig:
    """Architecture of one network of the ensemble.

    Parameters
    ----------
    vocab : int
        Number of input tokens V.
    max_len : int
        Longest sequence T (size of the position tables).
    d : int
        Embedding (residual stream) width; ``d % heads == 0``, head width ``d // heads``.
    layers, heads : int
        Number of attention layers and heads per layer.
    positions : str
        ``"relative"`` (Shaw et al. 2018, one table ``(T, d_h)`` per layer and head), ``"absolute"`` (one table
        ``(T, d)`` added to the embedding) or ``"none"``.
    mlp : int
        Hidden width of the MLP after each attention layer (GELU); 0 = attention-only.
    out : int or None
        Readout size (default ``vocab``).
    layer_norm : bool
        Parameter-free LayerNorm on the input of every block and of the readout.
    dropout : float
        Dropout probability (0 = none).
    init_std : float
        Standard deviation of every weight at initialisation (biases start at 0).
    head_width : int or None
        Width of one head (default ``d // heads``; set it when ``heads`` does not divide ``d``).
    """

    vocab: int
    max_len: int
    d: int = 16
    layers: int = 2
    heads: int = 1
    positions: str = "relative"
    mlp: int = 0
    out: int | None = None
    layer_norm: bool = False
    dropout: float = 0.0
    init_std: float = 0.02
    head_width: int | None = None

    def __post_init__(self) -> None:
        if self.positions not in POSITIONS:
            raise ValueError(f"positions must be one of {POSITIONS}, got {self.positions!r}")
        for name in ("vocab", "max_len", "d", "layers", "heads"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if self.head_width is not None and int(self.head_width) < 1:
            raise ValueError(f"head_width must be None or >= 1, got {self.head_width!r}")
        if self.head_width is None and self.d % self.heads:
            raise ValueError(f"d = {self.d} must be a multiple of heads = {self.heads} (or set head_width)")
        if self.mlp < 0 or not 0 <= self.dropout < 1:
            raise ValueError(f"need mlp >= 0 and 0 <= dropout < 1, got mlp = {self.mlp}, dropout = {self.dropout}")

    @property
    def head_dim(self) -> int:
        """Width d_h of one head: ``head_width``, or d // heads by default."""
        return self.head_width or self.d // self.heads

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def init_params(cfg: AttentionConfig, seed: int) -> dict[str, torch.Tensor]:
    """Initial parameters of one network (float64, CPU), every weight iid ``N(0, init_std^2)``, biases 0.

    Drawn from a private generator seeded with ``seed`` in a fixed order, so a seed gives the same network in any
    ensemble and on any device. Shapes (no seed axis): ``embed (V, d)``, ``pos (T, d)`` (absolute),
    ``l{i}.q/k/v (H, d, d_h)``, ``l{i}.o (H, d_h, d)``, ``l{i}.rel (H, T, d_h)`` (relative; row r is lag i - j = r),
    ``l{i}.mlp_in (d, m)``, ``l{i}.mlp_in_b (m,)``, ``l{i}.mlp_out (m, d)``, ``l{i}.mlp_out_b (d,)``,
    ``readout (d, out)``, ``readout_b (out,)``.
    """
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    H, dh, d, T = cfg.heads, cfg.head_dim, cfg.d, cfg.max_len

    def w(*shape: int) -> torch.Tensor:
        return torch.randn(shape, generator=gen, dtype=torch.float64) * cfg.init_std

    p = {"embed": w(cfg.vocab, d)}
    if cfg.positions == "absolute":
        p["pos"] = w(T, d)
    for i in range(cfg.layers):
        p[f"l{i}.q"], p[f"l{i}.k"], p[f"l{i}.v"], p[f"l{i}.o"] = w(H, d, dh), w(H, d, dh), w(H, d, dh), w(H, dh, d)
        if cfg.positions == "relative":
            p[f"l{i}.rel"] = w(H, T, dh)
        if cfg.mlp:
            p[f"l{i}.mlp_in"], p[f"l{i}.mlp_in_b"] = w(d, cfg.mlp), torch.zeros(cfg.mlp, dtype=torch.float64)
            p[f"l{i}.mlp_out"], p[f"l{i}.mlp_out_b"] = w(cfg.mlp, d), torch.zeros(d, dtype=torch.float64)
    out = cfg.out or cfg.vocab
    p["readout"], p["readout_b"] = w(d, out), torch.zeros(out, dtype=torch.float64)
    return p


def relative_scores(q: torch.Tensor, rel: torch.Tensor) -> torch.Tensor:
    r"""The relative term :math:`B_{ij} = q_i \cdot r_{i-j}` for j <= i (0 above the diagonal).

    ``q`` ``(S, B, H, T, d_h)``, ``rel`` ``(S, H, T_max, d_h)`` -> ``(S, B, H, T, T)``: all lags
    :math:`q_i \cdot r_l` by one einsum, then a gather of lag :math:`l = i - j`.
    """
    T = q.shape[-2]
    ar = torch.arange(T, device=q.device)
    return _relative_on_and_below(q, rel) * (ar[:, None] >= ar[None, :])


def _relative_on_and_below(q: torch.Tensor, rel: torch.Tensor) -> torch.Tensor:
    r""":func:`relative_scores` without the zeros above the diagonal: there it holds :math:`q_i \cdot r_0` instead
    (attention masks those entries anyway, so it skips the product by the mask)."""
    T = q.shape[-2]
    by_lag = torch.einsum("sbhie,shle->sbhil", q, rel[:, :, :T])  # (S, B, H, T, T): column l = lag
    ar = torch.arange(T, device=q.device)
    diff = ar[:, None] - ar[None, :]  # i - j
    return torch.gather(by_lag, -1, diff.clamp(min=0).expand(*by_lag.shape[:-1], T))


def _mask_future(scores: torch.Tensor) -> torch.Tensor:
    """``scores`` ``(..., T, T)`` with every entry above the diagonal (j > i) set to -inf, in place: the additive mask
    (0 on and below the diagonal, -inf above) added, which for finite scores equals filling -inf; Fig. 8.4a's update
    is 1.13 times faster with it than with ``masked_fill_`` of a broadcast boolean mask on an idle CPU, 1.4 times on a
    loaded one (``benchmarks/bench_markov_step.py``). An entry above the diagonal that is +inf or NaN (scores that overflowed)
    becomes NaN, not -inf, and so does its row's softmax: the trainers' divergence check stops such a run, where the
    filled mask would have hidden the entry."""
    T = scores.shape[-1]
    return scores.add_(torch.full((T, T), -math.inf, dtype=scores.dtype, device=scores.device).triu(1))


class AttentionEnsemble(torch.nn.Module):
    """S independent networks of one :class:`AttentionConfig` (module docstring), parameters ``(S, ...)``.

    Seeds never interact: seed s reads only its own slice of every parameter, so the gradient of a sum of
    per-seed losses is, seed by seed, the gradient of that seed's own loss.
    """

    def __init__(self, cfg: AttentionConfig, params: dict[str, torch.Tensor]) -> None:
        super().__init__()
        self.cfg = cfg
        shapes = init_params_shapes(cfg)
        self._names = list(shapes)
        if set(params) != set(shapes):
            raise ValueError(f"parameters {sorted(params)} do not match the config's {sorted(shapes)}")
        S = {t.shape[0] for t in params.values()}
        if len(S) != 1 or any(tuple(params[n].shape[1:]) != s for n, s in shapes.items()):
            raise ValueError("every parameter needs the shape of init_params plus one common leading seed axis")
        self.params = torch.nn.ParameterDict({n.replace(".", "_"): torch.nn.Parameter(t) for n, t in params.items()})

    @classmethod
    def init(
        cls,
        cfg: AttentionConfig,
        seeds: tuple[int, ...] | list[int],
        device: torch.device | str = "cpu",
        dtype: torch.dtype = torch.float32,
    ) -> AttentionEnsemble:
        """A fresh ensemble: :func:`init_params` for each seed, stacked (:func:`verify.runtime.loop.stack_seeds`)."""
        return cls(cfg, stack_seeds(seeds, lambda s: init_params(cfg, s), device=device, dtype=dtype))

    @property
    def n_seeds(self) -> int:
        return self.params["embed"].shape[0]

    def p(self, name: str) -> torch.Tensor:
        """The parameter ``name`` (names as in :func:`init_params`), shape ``(S, ...)``."""
        return self.params[name.replace(".", "_")]

    def seed_slice(self, index: int) -> AttentionEnsemble:
        """A one-seed ensemble holding (copies of) seed position ``index``."""
        return AttentionEnsemble(self.cfg, {n: self.p(n)[index : index + 1].detach().clone() for n in self.names()})

    def names(self) -> list[str]:
        """Parameter names as in :func:`init_params`."""
        return list(self._names)

    def _norm(self, z: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(z, (self.cfg.d,)) if self.cfg.layer_norm else z

    def _drop(self, z: torch.Tensor) -> torch.Tensor:
        return F.dropout(z, self.cfg.dropout, self.training) if self.cfg.dropout else z

    def attention(
        self, i: int, z: torch.Tensor, *, need_maps: bool = False, use_sdpa: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Layer ``i``'s multi-head attention of ``z`` ``(S, B, T, d)``: ``(S, B, T, d)`` and the maps or None."""
        S, B = z.shape[:2]
        q = torch.einsum("sbtd,shde->sbhte", z, self.p(f"l{i}.q"))
        k = torch.einsum("sbtd,shde->sbhte", z, self.p(f"l{i}.k"))
        v = torch.einsum("sbtd,shde->sbhte", z, self.p(f"l{i}.v"))
        relative = self.cfg.positions == "relative"
        drop = self.cfg.dropout if self.training else 0.0
        if use_sdpa and not relative and not need_maps:
            flat = [x.reshape(S * B, *x.shape[2:]) for x in (q, k, v)]
            heads = F.scaled_dot_product_attention(*flat, is_causal=True, dropout_p=drop).view(q.shape)
            maps = None
        else:
            scores = q @ k.transpose(-1, -2)
            if relative:  # the entries above the diagonal are masked below: no zeros needed there
                scores += _relative_on_and_below(q, self.p(f"l{i}.rel"))  # in place: the product is not saved
            # scaled and masked in place (neither tensor is saved for the backward pass): two fewer (S, B, H, T, T)
            # buffers per layer, the same values to the bit (tests/verify/test_attention.py)
            maps = torch.softmax(_mask_future(scores.div_(math.sqrt(self.cfg.head_dim))), dim=-1)
            heads = F.dropout(maps, drop, True) @ v if drop else maps @ v
        return torch.einsum("sbhte,shed->sbtd", heads, self.p(f"l{i}.o")), maps

    def mlp_block(self, i: int, z: torch.Tensor) -> torch.Tensor:
        """Layer ``i``'s GELU MLP of ``norm(z)`` for ``z`` ``(S, B, T, d)``: ``W_out GELU(W_in norm(z) + b_in) + b_out``
        per seed and position, ``(S, B, T, d)`` (the residual stream adds it; the layer's output without one)."""
        h = F.gelu(torch.einsum("sbtd,sdm->sbtm", self._norm(z), self.p(f"l{i}.mlp_in")))
        h = h + self.p(f"l{i}.mlp_in_b")[:, None, None]
        return torch.einsum("sbtm,smd->sbtd", h, self.p(f"l{i}.mlp_out")) + self.p(f"l{i}.mlp_out_b")[:, None, None]

    def forward(
        self, tokens: torch.Tensor, *, return_attention: bool = False, use_sdpa: bool = True
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``(S, B, T, out)`` of int64 ``tokens`` ``(S, B, T)`` (per-seed inputs) or ``(B, T)`` (shared).

        With ``return_attention`` also the attention maps, one ``(S, B, H, T, T)`` tensor per layer (rows sum to
        1, zero above the diagonal). ``use_sdpa=False`` forces the explicit scores (tests).
        """
        S = self.n_seeds
        if tokens.ndim == 2:
            tokens = tokens.unsqueeze(0).expand(S, *tokens.shape)
        if tokens.ndim != 3 or tokens.shape[0] != S or tokens.dtype != torch.int64:
            raise ValueError(
                f"tokens must be int64 (B, T) or (S = {S}, B, T), got {tokens.dtype} {tuple(tokens.shape)}"
            )
        T = tokens.shape[-1]
        if self.cfg.max_len < T:
            raise ValueError(f"sequence length {T} exceeds max_len = {self.cfg.max_len}")
        seed_idx = torch.arange(S, device=tokens.device)[:, None, None]
        z = self.p("embed")[seed_idx, tokens]  # (S, B, T, d)
        if self.cfg.positions == "absolute":
            z = z + self.p("pos")[:, None, :T]
        z = self._drop(z)
        maps: list[torch.Tensor] = []
        for i in range(self.cfg.layers):
            a, m = self.attention(i, self._norm(z), need_maps=return_attention, use_sdpa=use_sdpa)
            z = z + self._drop(a)
            if m is not None:
                maps.append(m)
            if self.cfg.mlp:
                h = self.mlp_block(i, z)
                z = z + self._drop(h)
        logits = torch.einsum("sbtd,sdo->sbto", self._norm(z), self.p("readout")) + self.p("readout_b")[:, None, None]
        return (logits, maps) if return_attention else logits

    def state(self) -> dict[str, torch.Tensor]:
        """Detached CPU float64 copies of the parameters under their :func:`init_params` names."""
        return {n: self.p(n).detach().to("cpu", torch.float64).clone() for n in self.names()}


def init_params_shapes(cfg: AttentionConfig) -> dict[str, tuple[int, ...]]:
    """Parameter names and per-seed shapes of :func:`init_params` (drawn once per architecture: the plan asks for
    the memory of many runs of a few architectures, :mod:`verify.report.plan`)."""
    return dict(_init_params_shapes(replace(cfg, init_std=1.0, dropout=0.0, layer_norm=False)))


@functools.lru_cache(maxsize=32)
def _init_params_shapes(cfg: AttentionConfig) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return tuple((n, tuple(t.shape)) for n, t in init_params(cfg, 0).items())


def per_seed_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy of every seed: logits ``(S, B, T, C)``, targets ``(S, B, T)`` -> ``(S,)``."""
    S, B, T, C = logits.shape
    ce = F.cross_entropy(logits.reshape(S * B * T, C), targets.reshape(S * B * T), reduction="none")
    return ce.view(S, B * T).mean(dim=1)


def memory_estimate(cfg: AttentionConfig, n_seeds: int, batch: int, seq_len: int, itemsize: int = 4) -> int:
    """Estimated peak bytes of one training step of :class:`AttentionEnsemble` (an upper estimate).

    Parameters: weights, gradients and two optimiser slots (Adam/AdamW). Activations kept for the backward pass,
    per layer and per (seed, sequence), counted from what autograd saves (``tests/verify/test_attention.py`` measures
    it with saved-tensor hooks): six ``(T, d)`` and four ``(T, H d_h)`` buffers (the einsums' reshaped inputs,
    q, k, v, the heads), five ``(H, T, T)`` score-sized buffers with relative positions (scores, lag products, the
    gathered relative term, mask, softmax) and three without, three ``(T, mlp)`` for the MLP; plus the logits and
    their gradient ``(T, out)`` twice. Backward temporaries are taken as one more layer's activations.
    """
    S, B, T = int(n_seeds), int(batch), int(seq_len)
    n_params = sum(math.prod(shape) for shape in init_params_shapes(cfg).values())
    params = 4 * S * n_params * itemsize
    H, dh, d = cfg.heads, cfg.head_dim, cfg.d
    relative = cfg.positions == "relative"
    per_layer = T * (6 * d + 4 * H * dh) + (5 if relative else 3) * H * T * T + 3 * T * cfg.mlp
    out = cfg.out or cfg.vocab
    per_sequence = (cfg.layers + 1) * per_layer + 4 * T * out + T * d
    return int(params + S * B * per_sequence * itemsize)


def step_multiply_adds(cfg: AttentionConfig, n_seeds: int, batch: int, seq_len: int) -> float:
    """Multiply-adds of one training step of :class:`AttentionEnsemble` on ``(n_seeds, batch, seq_len)`` tokens,
    counted from the shapes (the plan's trainer cost model, :mod:`verify.report.plan`).

    Per layer and sequence of ``T`` tokens the forward pass takes ``4 T d H d_h`` for the query, key, value and
    output projections, ``2 H T^2 d_h`` for the scores and the weighted sum of values, ``2 T d mlp`` for the MLP;
    the readout adds ``T d out``. Backward takes about twice the forward, so a step is three forwards. Embedding
    gathers, softmax, LayerNorm and the optimiser's entry-wise update are not counted (linear in the sizes, small
    beside the products at the sizes trained here).
    """
    S, B, T = int(n_seeds), int(batch), int(seq_len)
    H, dh, d = cfg.heads, cfg.head_dim, cfg.d
    per_layer = 4 * T * d * H * dh + 2 * H * T * T * dh + 2 * T * d * cfg.mlp
    per_sequence = cfg.layers * per_layer + T * d * (cfg.out or cfg.vocab)
    return 3.0 * S * B * per_sequence


def check_memory(model: torch.nn.Module, inputs: torch.Tensor, ignore: bool) -> int | None:
    """:func:`memory_estimate` for ``inputs`` ``(S, B, T)`` against the free memory of their device (refused with
    :class:`verify.runtime.memory.InsufficientMemoryError` unless ``ignore``); None when ``model`` is not an
    :class:`AttentionEnsemble` (no estimate)."""
    if not isinstance(model, AttentionEnsemble) or inputs.ndim != 3:
        return None
    S, B, T = inputs.shape
    need = memory_estimate(model.cfg, S, B, T, model.p("embed").element_size())
    check_free_memory(
        need,
        inputs.device,
        f"attention training ({S} seeds x batch {B} x length {T}, {model.cfg.layers} layers, {model.cfg.heads} "
        f"heads, d = {model.cfg.d})",
        f"train fewer seeds per run or smaller batches, {OVERRIDE_HINT}",
        ignore,
    )
    return need


@dataclass(frozen=True)
class FitSchedule:
    """The optimisation of one :func:`fit` run.

    Parameters
    ----------
    steps : int
        Updates.
    lr : float
        Constant learning rate.
    optimizer : {'adamw', 'adam', 'sgd'}
        AdamW (decoupled ``weight_decay``), Adam or plain SGD (L2 ``weight_decay``).
    weight_decay : float
        The optimiser's weight decay.
    eval_every : int
        Steps between evaluations (and at the last step).
    nan_check_every : int
        Steps between NaN/inf checks of the loss and the weights.
    num_threads : int or None
        torch intra-op threads for the run (None: as they are).
    desc : str
        The run's name on the progress bar and in the printed estimate.
    """

    steps: int
    lr: float
    optimizer: str = "adamw"
    weight_decay: float = 0.0
    eval_every: int = 100
    nan_check_every: int = 50
    num_threads: int | None = None
    desc: str = "attention"

    def __post_init__(self) -> None:
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")


@dataclass(frozen=True)
class FitHooks:
    """What a caller of :func:`fit` plugs into the loop.

    Parameters
    ----------
    loss_fn : callable
        ``loss_fn(logits, targets)`` -> per-seed loss ``(S,)`` (default: per-seed mean cross-entropy).
    evaluate, stop : callable or None
        :func:`verify.runtime.loop.run_loop`'s hooks (``evaluate`` must return plain data: a checkpoint keeps it).
    checkpoint_config : mapping or None
        The caller's configuration as plain data, which a checkpoint is bound to.
    state, restore : callable or None
        Save and restore the caller's own state in a checkpoint (its history, the generators its batches come
        from): :func:`verify.runtime.checkpoint.fit_checkpoint` makes the three for a caller.
    """

    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = per_seed_cross_entropy
    evaluate: Callable[[int], Any] | None = None
    stop: Callable[[int, Any], bool] | None = None
    checkpoint_config: Mapping[str, Any] | None = None
    state: Callable[[], Mapping[str, Any]] | None = None
    restore: Callable[[Mapping[str, Any]], None] | None = None


DEFAULT_HOOKS = FitHooks()


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fit(
    model: torch.nn.Module,
    batch: Callable[[int], tuple[torch.Tensor, torch.Tensor]],
    schedule: FitSchedule,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    seeds: tuple[int, ...],
    hooks: FitHooks = DEFAULT_HOOKS,
    log: Callable[[str], None] = _stderr,
) -> LoopEnd:
    """Train the seed ensemble ``model`` (any module with a leading seed axis) for ``schedule.steps`` updates.

    Step t draws ``inputs, targets = batch(t)`` (``(S, B, T)`` each, one data stream per seed) and takes one
    optimiser step (``schedule``: AdamW, Adam or plain SGD, constant lr, decoupled weight decay for AdamW, L2 for the
    others) on the sum over seeds of ``hooks.loss_fn(model(inputs), targets)`` (per-seed mean cross-entropy by
    default). These optimisers act entry by entry and there is no global gradient clipping, so every seed follows
    the trajectory it would follow alone. ``hooks.evaluate``/``hooks.stop`` and ``schedule.eval_every`` are
    :func:`verify.runtime.loop.run_loop`'s hooks; a NaN/inf loss or weight raises
    :class:`verify.runtime.divergence.TrainingDiverged`. ``seeds`` names the seed of each ensemble member (the
    caller's resolved seeds, :meth:`verify.runtime.options.RunOptions.configure`).

    The first batch's shape fixes :func:`memory_estimate`, checked against the device's free memory before the
    first update (:class:`verify.runtime.memory.InsufficientMemoryError` unless ``options.ignore_memory_check``);
    when the first ``PROBE_STEPS`` updates predict more than ``PRINT_ESTIMATE_S`` seconds in all, ``log`` gets the
    estimate (memory, time per step, total).

    Checkpoints: with ``options.checkpoint_path`` the run saves the parameters and buffers, the optimiser's state,
    torch's global generators (dropout), the last evaluation record and the caller's ``hooks.state()`` (plain data
    or tensors: its history, the state of the generators ``batch`` draws from) every ``options.checkpoint_every``
    steps, every ``CHECKPOINT_SECONDS``, at the end and on Ctrl-C; a rerun resumes from a trusted checkpoint of the
    same ``hooks.checkpoint_config`` (:func:`verify.runtime.checkpoint.resume`), calls ``hooks.restore(saved)`` and
    follows the trajectory of an uninterrupted run. A step evaluated before the save is not evaluated again:
    ``hooks.stop`` gets its saved record.
    """
    sch, params = schedule, list(model.parameters())
    opt = {
        "adamw": lambda: torch.optim.AdamW(params, lr=sch.lr, weight_decay=sch.weight_decay),
        "adam": lambda: torch.optim.Adam(params, lr=sch.lr, weight_decay=sch.weight_decay),
        "sgd": lambda: torch.optim.SGD(params, lr=sch.lr, weight_decay=sch.weight_decay),
    }[sch.optimizer]()

    estimate = RunEstimate(
        sch.steps,
        len(seeds),
        sch.desc,
        log,
        check=lambda inputs: check_memory(model, inputs, options.ignore_memory_check),
        eval_every=None if hooks.evaluate is None else sch.eval_every,
    )

    def step_fn(t: int) -> torch.Tensor:
        model.train()
        inputs, targets = batch(t)
        estimate(t, inputs)
        opt.zero_grad(set_to_none=True)
        loss = hooks.loss_fn(model(inputs), targets)
        loss.sum().backward()
        opt.step()
        model.eval()
        return loss.detach()

    guard = NonFiniteGuard(
        tuple(seeds),
        "attention",
        "lower lr or the init scale",
        every=sch.nan_check_every,
        weights=dict(model.named_parameters()),
    )
    evaluated: dict[str, Any] = {"step": None, "record": None}  # the last evaluation (a checkpoint keeps it)

    def tracked(t: int) -> Any:
        assert hooks.evaluate is not None
        if evaluated["step"] == t:  # evaluated before the checkpoint this run resumed from
            return evaluated["record"]
        record = hooks.evaluate(t)
        evaluated.update(step=t, record=record)
        return record

    def extra() -> dict[str, Any]:
        return {"evaluated": dict(evaluated), "caller": {} if hooks.state is None else dict(hooks.state())}

    def restore_extra(saved: Mapping[str, Any]) -> None:
        evaluated.update(saved["evaluated"])
        if hooks.restore is not None:
            hooks.restore(saved["caller"])

    ckpt = Checkpoint.at(
        options.checkpoint_path,
        "attention",
        {"fit": {"lr": sch.lr, "optimizer": sch.optimizer, "weight_decay": sch.weight_decay, "seeds": list(seeds)}}
        | dict(hooks.checkpoint_config or {}),
        sch.steps,
        meta={"tensors": {name: list(t.shape) for name, t in model.state_dict().items()}},
    )
    trainer = TrainerState(dict(model.state_dict()), opt, global_rng=True, extra=extra, restore_extra=restore_extra)
    with torch_threads(sch.num_threads):
        start = resume(ckpt, trainer, options.checkpoint_every)
        return run_loop(
            step_fn,
            sch.steps,
            evaluate=None if hooks.evaluate is None else tracked,
            eval_every=sch.eval_every,
            stop=hooks.stop,
            guard=guard,
            resumption=start,
            bar=Bar(enabled=options.progress, desc=sch.desc),
        )
