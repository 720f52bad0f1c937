r"""Training on in-context Markov chains (Edelman thesis Ch. 8, App. E.2; docs/attention.md).

Two models learn to predict :math:`x_{p+1}` from :math:`x_1..x_p` for chains drawn by ``numerics.markov``:

* the **minimal model** (Eq. (8.8), App. E.2): :math:`f(E) = \mathrm{mask}(E W_k (M E)^\top) E` with one-hot
  :math:`E \in \{0,1\}^{t \times k}`, :math:`W_k \in \mathbb{R}^{k \times k}` and the lower-triangular Toeplitz
  :math:`M_{t', s} = v_{t'-s+1}`, :math:`v \in \mathbb{R}^t` (no softmax inside; the logits are linear in
  :math:`W_k` and in v). :class:`MinimalEnsemble` holds S of them;
* the **attention-only transformer** (Eqs. (8.4)-(8.5)): :class:`verify.train.attention.AttentionEnsemble` with
  relative positions.

Both train on next-token cross-entropy averaged over positions (Eq. (8.6)), each seed on its own stream of
fresh chains, through :func:`verify.train.attention.fit`. The judged quantities are evaluated in float64 on a fixed test
set: the test KL :math:`\mathrm{KL}(P_{x_t,:} \| \mathrm{model})` at the last token (App. E.2: the thesis's code
reports the soft-target cross-entropy KL + H instead; docs/attention.md), the KL from each strategy to the model
(Fig. 8.1 bottom, Fig. 8.3), and the attention mass on the positions the construction of Prop. 8.2 attends to
(Fig. 8.2).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import torch

from numerics import markov as nm
from verify.runtime.checkpoint import fit_checkpoint
from verify.runtime.memory import OVERRIDE_HINT, check_free_memory, wall_seconds
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions
from verify.train.attention import AttentionConfig, AttentionEnsemble, FitHooks, FitSchedule, fit

__all__ = [
    "MarkovRun",
    "MinimalEnsemble",
    "MinimalModelConfig",
    "TestSet",
    "TransformerConfig",
    "attention_masses",
    "effective_positional",
    "evaluate_kls",
    "evaluation_memory",
    "make_test_set",
    "probe_minimal_step",
    "probe_transformer_step",
    "toeplitz",
    "train_minimal",
    "train_transformer",
]

TEST_SEED = 10_000  # the test chains' generator (never a training seed stream)
POSITIONAL_LAGS = 16  # lags of layer 1's effective positional encoding recorded at every evaluation
EVAL_SCORE_BYTES = 1 << 27  # 128 MiB: the float64 attention scores of one chunk of test chains (all seeds)
MASS_CHAINS = 256  # test chains the attention masses and the positional encoding are read on, at every evaluation


@dataclass(frozen=True)
class MinimalModelConfig:
    r"""SGD on the minimal model (App. E.2: batch 64, lr 2e-3, cross-entropy, k = 2, t = 100).

    Initialisation: :math:`W_k = w_{\text{init}} \mathbf{1}\mathbf{1}^\top
    + w_{\text{diag}} I` and :math:`v = v_{\text{init}} \mathbf{1}`. The defaults follow the Fig. 8.3 caption
    ("v constant uniform init, W_K init 0": :math:`W_k = 0`, :math:`v = 0.02`); the thesis's code starts from
    :math:`W_k = I` instead, which is already the diagonal the claims want to see emerge (docs/attention.md).
    """

    k: int = 2
    t: int = 100
    steps: int = 2000
    lr: float = 2e-3
    batch: int = 64
    seeds: tuple[int, ...] = (0,)
    w_init: float = 0.0
    w_diag: float = 0.0
    v_init: float = 0.02
    prior: str = "dirichlet"
    eval_every: int = 100
    eval_n: int = 2000
    dtype: str | None = None
    num_threads: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TransformerConfig:
    """A seed ensemble of attention-only transformers on chains of ``k`` states and context ``t``.

    ``model`` is the architecture (its ``vocab``/``max_len`` are set to ``k``/``t``). ``order`` 2: Markov chains
    from ``prior``; 3: trigram chains (Fig. 8.5). Fresh chains every step (batch ``batch`` per seed).
    """

    k: int = 2
    t: int = 100
    model: AttentionConfig = field(default_factory=lambda: AttentionConfig(vocab=2, max_len=100))
    steps: int = 2000
    lr: float = 3e-5
    batch: int = 64
    optimizer: str = "adamw"
    weight_decay: float = 0.0
    seeds: tuple[int, ...] = (0,)
    prior: str = "dirichlet"
    order: int = 2
    eval_every: int = 100
    eval_n: int = 2000
    dtype: str | None = "float32"
    num_threads: int | None = None

    def __post_init__(self) -> None:
        if (self.model.vocab, self.model.max_len) != (self.k, self.t):
            object.__setattr__(self, "model", replace(self.model, vocab=self.k, max_len=self.t))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MarkovRun:
    """A finished run: ``history`` (one record per evaluation, every per-seed list in ensemble order),
    ``final`` (the last record), ``state`` (float64 CPU parameters, seed axis first) and the ensemble's ``seeds``."""

    history: list[dict[str, Any]]
    state: dict[str, torch.Tensor]
    seeds: tuple[int, ...]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def final(self) -> dict[str, Any]:
        return self.history[-1]


# --- Eq. (8.8): the minimal model


def toeplitz(v: torch.Tensor, t: int) -> torch.Tensor:
    r"""Lower-triangular Toeplitz :math:`M_{a,b} = v_{a-b+1}` (a >= b, 0 above), batched: ``(S, t)`` -> ``(S, t, t)``."""
    ar = torch.arange(t, device=v.device)
    diff = ar[:, None] - ar[None, :]
    return v[:, diff.clamp(min=0)] * (diff >= 0)


class MinimalEnsemble(torch.nn.Module):
    r"""S minimal models (Eq. (8.8)): parameters ``W`` ``(S, k, k)`` and ``v`` ``(S, t)``.

    :math:`f_{p,i} = \sum_{t' \le p} 1\{x_{t'} = i\} \sum_{s \le t'} v_{t'-s+1} W_k[x_p, x_s]`: with
    :math:`H = M E` (position-mixed one-hots), :math:`A = \mathrm{tril}(E W_k H^\top)` and :math:`f = A E`.
    """

    def __init__(self, W: torch.Tensor, v: torch.Tensor) -> None:
        super().__init__()
        if W.ndim != 3 or v.ndim != 2 or W.shape[0] != v.shape[0] or W.shape[1] != W.shape[2]:
            raise ValueError(f"need W (S, k, k) and v (S, t); got {tuple(W.shape)} and {tuple(v.shape)}")
        self.W, self.v = torch.nn.Parameter(W), torch.nn.Parameter(v)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``(S, B, T, k)`` of int64 tokens ``(S, B, T)`` or ``(B, T)`` (shared by the seeds), T <= t."""
        S, k, T = self.W.shape[0], self.W.shape[1], tokens.shape[-1]
        if tokens.ndim == 2:
            tokens = tokens.unsqueeze(0).expand(S, *tokens.shape)
        E = torch.nn.functional.one_hot(tokens, k).to(self.W.dtype)  # (S, B, T, k)
        H = torch.einsum("sac,sbck->sbak", toeplitz(self.v[:, :T], T), E)  # H = M E
        # f_p = sum_{q <= p} (E_p W_k H_q) E_q = E_p W_k C_p with C_p = sum_{q <= p} H_q E_q^T (k x k): the same
        # logits as tril(E W_k H^T) E without the (S, B, T, T) score tensor (O(T k^2) per sequence, not O(T^2))
        C = torch.cumsum(H.unsqueeze(-1) * E.unsqueeze(-2), dim=2)  # (S, B, T, k, k): [l, i] = sum_q H_ql E_qi
        return torch.einsum("sbpk,skl,sbpli->sbpi", E, self.W, C)

    def state(self) -> dict[str, torch.Tensor]:
        return {"W": self.W.detach().to("cpu", torch.float64).clone(), "v": self.v.detach().to("cpu", torch.float64)}


# --- evaluation on a fixed test set


@dataclass(frozen=True)
class TestSet:
    """Fixed test chains: ``inputs`` ``(n, t)``, the true next-token laws ``truth`` ``(n, t, k)`` (positions with
    no defined law, the first order-2 of a trigram chain, are copied from the first defined one) and the strategies'
    predictions ``strategies[name]`` ``(n, t, k)``."""

    inputs: np.ndarray
    truth: np.ndarray
    strategies: dict[str, np.ndarray]


def _chains(
    k: int, t: int, n: int, prior: str, order: int, rng: np.random.Generator, truth: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """``n`` chains of ``t + 1`` tokens and the true laws of tokens 2..t+1 given the past, ``(n, t, k)`` (None with
    ``truth=False``, for training batches: the draws from ``rng`` are the same)."""
    if order == 2:
        P = nm.sample_transition_matrices(k, n, prior, rng)
        x = nm.sample_sequences(P, t + 1, rng)
        return x, (nm.true_next(P, x[:, :t]) if truth else None)
    if order == 3:
        T = nm.sample_ngram_tables(k, 3, n, rng)
        x = nm.sample_ngram_sequences(T, t + 1, rng)
        if not truth:
            return x, None
        truth_ = nm.true_next_ngram(T, x[:, :t])  # positions 2..t
        return x, np.concatenate([truth_[:, :1], truth_], axis=1)
    raise ValueError(f"order must be 2 (Markov chains) or 3 (trigram chains), got {order!r}")


def make_test_set(k: int, t: int, n: int, prior: str = "dirichlet", order: int = 2, seed: int = TEST_SEED) -> TestSet:
    """``n`` test chains with their true laws and the uniform/unigram/bigram(/trigram) strategies' predictions."""
    x, truth = _chains(k, t, n, prior, order, np.random.default_rng(seed))
    names = ("uniform", "unigram", "bigram") + (("trigram",) if order == 3 else ())
    return TestSet(x[:, :t], truth, {s: nm.strategy_probs(x[:, :t], k, s) for s in names})


def _score_bytes(n_seeds: int, heads: int, t: int) -> int:
    """Bytes of one chain's float64 attention scores of one layer, all seeds: ``8 S H t^2``."""
    return 8 * n_seeds * heads * t * t


def _chains_per_chunk(per_chain: int) -> int:
    """Test chains per forward pass of an evaluation: :data:`EVAL_SCORE_BYTES` over one chain's bytes (at least 1)."""
    return max(1, EVAL_SCORE_BYTES // per_chain)


def _eval_chunk(model: torch.nn.Module, t: int) -> int:
    """:func:`_chains_per_chunk` of ``model``: one chain's float64 attention scores of all seeds, ``S H t^2`` (a
    transformer's; the minimal model's ``S t`` weights are fewer)."""
    if isinstance(model, AttentionEnsemble):
        return _chains_per_chunk(_score_bytes(model.n_seeds, model.cfg.heads, t))
    return _chains_per_chunk(8 * int(model.W.shape[0]) * t)


def evaluation_memory(cfg: TransformerConfig) -> int:
    """Estimated peak bytes of one evaluation of :func:`train_transformer` (an upper estimate; float64 forward passes).

    The larger of its two passes, plus the test set (``eval_n`` chains, their laws and the strategies'): the KLs,
    six score-sized buffers of one chunk of chains (:func:`_eval_chunk`: scores, lag products, the gathered relative
    term, their sum, softmax, with relative positions); the attention part on ``min(MASS_CHAINS, eval_n)`` chains,
    the larger of ``layers + 5`` score-sized buffers of one chunk (the maps of every layer are kept while the last
    layer's scores are formed and numpy reads the masses from them) and four of all its chains (layer 1's scores by
    lag and their masked copy, for the positional encoding). ``tests/verify/test_markov_training.py`` checks it
    against the tensors and arrays an evaluation allocates. Fig. 8.4a: 1.0 GB; the trigram claim (t = 200, 3 heads):
    9.9 GB, nearly all the positional encoding's scores (the maps of all 256 chains at once took 11.7 GB of resident
    memory before they were made in chunks).
    """
    S, H, t, model = len(cfg.seeds), cfg.model.heads, cfg.t, cfg.model
    per_chain = _score_bytes(S, H, t)
    chunk, probe = _chains_per_chunk(per_chain), min(MASS_CHAINS, cfg.eval_n)
    kls = 6 * min(cfg.eval_n, chunk) * per_chain
    masses = max((model.layers + 5) * min(probe, chunk), 4 * probe) * per_chain
    strategies = 4 if cfg.order == 3 else 3
    test_set = 8 * cfg.eval_n * (t + 1) * cfg.k * (strategies + 1) + 8 * cfg.eval_n * (t + 1)
    return int(max(kls, masses) + test_set)


def _last_log_probs(model: torch.nn.Module, inputs: np.ndarray, device: torch.device) -> np.ndarray:
    """float64 next-token log-probabilities at the last position, ``(S, n, k)``, of every seed (the model is run in
    float64), in chunks of :func:`_eval_chunk` chains: all ``eval_n`` chains at once held the ``(S, n, H, t, t)``
    scores, about 15 GB at Fig. 8.4a's full scale (10 seeds, 4000 chains, t = 100). The chains are independent, and the
    chunked values equal the unchunked ones bit for bit (tests/verify/test_markov_training.py)."""
    chunk = _eval_chunk(model, inputs.shape[1])
    with torch.no_grad():
        m64 = _as_float64(model)
        parts = [
            torch.log_softmax(m64(torch.as_tensor(inputs[i : i + chunk], device=device))[:, :, -1], dim=-1)
            for i in range(0, inputs.shape[0], chunk)
        ]
        return torch.cat(parts, dim=1).cpu().numpy()


def _as_float64(model: torch.nn.Module) -> torch.nn.Module:
    if isinstance(model, MinimalEnsemble):
        return MinimalEnsemble(model.W.detach().double(), model.v.detach().double())
    return AttentionEnsemble(model.cfg, {n: model.p(n).detach().double() for n in model.names()}).eval()


def _kl_to_model(p: np.ndarray, logq: np.ndarray) -> np.ndarray:
    """KL(p || exp(logq)) over the last axis with 0 log 0 = 0 (logq finite)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * (np.log(p) - logq), 0.0).sum(axis=-1)


def evaluate_kls(model: torch.nn.Module, test: TestSet, device: torch.device) -> dict[str, list[float]]:
    """Per seed, at the last token: the test KL ``kl`` = E KL(truth || model), its standard error over the test chains
    ``kl_stderr``, and ``kl_to_<s>`` = E KL(s || model)."""
    logq = _last_log_probs(model, test.inputs, device)  # (S, n, k)
    per_chain = _kl_to_model(test.truth[None, :, -1], logq)  # (S, n)
    rec = {
        "kl": per_chain.mean(axis=1).tolist(),
        "kl_stderr": (per_chain.std(axis=1, ddof=1) / np.sqrt(per_chain.shape[1])).tolist(),
    }
    for name, q in test.strategies.items():
        rec[f"kl_to_{name}"] = _kl_to_model(q[None, :, -1], logq).mean(axis=1).tolist()
    return rec


def attention_masses(maps: list[torch.Tensor], inputs: np.ndarray, from_position: int = 0) -> dict[str, np.ndarray]:
    r"""Attention mass on the positions the Prop. 8.2 construction attends to (Fig. 8.2), per seed ``(S,)``.

    * ``prev``: layer 1, mass on the previous token j = i - 1 (mean over i >= 1 and sequences; best head), and
      ``prev_excl_self`` the same as a share of the mass on earlier tokens j < i (the residual stream already
      carries token i, so a head may split its mass between i and i - 1);
    * ``induction``: the last layer, mass on the successors of earlier copies of the current token,
      :math:`\{j \le p: j \ge 1, x_{j-1} = x_p\}` (0-based; mean over p >= ``from_position`` whose set is non-empty,
      and sequences; best head), with ``induction_chance`` the mass a uniform causal row would put there.
    """
    return _masses_of_rows(_row_masses(maps, inputs), inputs, from_position)


def _row_masses(maps: list[torch.Tensor], inputs: np.ndarray) -> dict[str, np.ndarray]:
    """The per-row pieces of :func:`attention_masses`, ``(S, B, H, .)``: layer 1's mass on i - 1 (``on_prev``, rows
    i >= 1) and on i (``on_self``, rows i >= 1), and the last layer's mass on the induction targets (``mass``). Each
    row is one sequence's, so those of chunks of sequences, concatenated, are those of all of them (contiguous
    copies: the means over sequences are then summed in one order however the maps were cut; numpy sums a strided
    view of the maps in another, which moved layer 1's means by ~1e-17 against the code before 2026-11-30)."""
    a1 = maps[0].detach().double().cpu().numpy()  # (S, B, H, T, T)
    target = nm.induction_targets(inputs)  # (B, T, T) bool
    a2 = maps[-1].detach().double().cpu().numpy()
    return {
        "on_prev": np.ascontiguousarray(np.diagonal(a1, offset=-1, axis1=-2, axis2=-1)),  # (S, B, H, T-1): i >= 1
        "on_self": np.ascontiguousarray(np.diagonal(a1, axis1=-2, axis2=-1)[..., 1:]),
        "mass": (a2 * target[None, :, None]).sum(axis=-1),  # (S, B, H, T)
    }


def _masses_of_rows(rows: dict[str, np.ndarray], inputs: np.ndarray, from_position: int) -> dict[str, np.ndarray]:
    """:func:`attention_masses` from its per-row pieces (:func:`_row_masses`) of the sequences ``inputs``."""
    on_prev, mass = rows["on_prev"], rows["mass"]
    off_self = 1.0 - rows["on_self"]
    prev = on_prev.mean(axis=(1, 3)).max(axis=1)  # (S,)
    prev_excl_self = (on_prev / np.maximum(off_self, 1e-12)).mean(axis=(1, 3)).max(axis=1)
    target = nm.induction_targets(inputs)  # (B, T, T) bool
    T = target.shape[-1]
    rows_from = np.arange(T) >= from_position
    has = target.any(axis=-1) & rows_from[None, :]  # (B, T)
    induction = (mass * has[None, :, None]).sum(axis=(1, 3)) / has.sum()
    chance = (target.sum(-1) / (np.arange(T) + 1))[has].mean()
    return {
        "prev": prev,
        "prev_excl_self": prev_excl_self,
        "induction": induction.max(axis=1),
        "induction_chance": np.full(prev.shape, chance),
    }


def effective_positional(model: AttentionEnsemble, inputs: np.ndarray, device: torch.device) -> np.ndarray | None:
    r"""Layer 1's effective positional encoding (Fig. 8.3, top middle): the mean relative score
    :math:`E[q_i \cdot r_l]/\sqrt{d_h}` by lag l = i - j (over sequences and positions i >= l; best-attending head,
    the one with the largest lag-1 bias), ``(S, T)``; None without relative positions."""
    if model.cfg.positions != "relative":
        return None
    m = _as_float64(model)
    with torch.no_grad():
        z = m.p("embed")[torch.arange(m.n_seeds)[:, None, None], torch.as_tensor(inputs, device=device)]
        q = torch.einsum("sbtd,shde->sbhte", m._norm(z), m.p("l0.q"))
        by_lag = torch.einsum("sbhie,shle->sbhil", q, m.p("l0.rel")[:, :, : q.shape[-2]]) / np.sqrt(m.cfg.head_dim)
    T = by_lag.shape[-1]
    valid = (np.arange(T)[:, None] >= np.arange(T)[None, :]).astype(float)  # lag l <= i
    mean = (by_lag.cpu().numpy() * valid).sum(axis=(1, 3)) / (valid.sum(axis=0) * by_lag.shape[1])  # (S, H, T)
    head = np.argmax(mean[:, :, 1] - mean[:, :, 0], axis=1) if T > 1 else np.zeros(mean.shape[0], dtype=int)
    return mean[np.arange(mean.shape[0]), head]


# --- training


def _seed_streams(seeds: tuple[int, ...]) -> list[np.random.Generator]:
    """One data generator per seed (independent of the ensemble it is trained in)."""
    return [np.random.default_rng([int(s), 1]) for s in seeds]


def _markov_batch(k: int, t: int, batch: int, prior: str, streams: list[np.random.Generator]) -> np.ndarray:
    """``(S, B, t + 1)`` Markov chains, the same draws as ``numerics.markov.sample_sequences`` from each seed's
    stream (its matrices, then one uniform per chain and position, position by position), but walked for all seeds
    at once: the per-position Python loop runs once per batch, not once per seed."""
    P = np.stack([nm.sample_transition_matrices(k, batch, prior, rng) for rng in streams])  # (S, B, k, k)
    u = np.stack([rng.random((t + 1, batch)) for rng in streams])  # (S, t + 1, B): as t + 1 draws of B each
    P = P.reshape(-1, k, k)
    u = u.transpose(0, 2, 1).reshape(-1, t + 1)  # (S B, t + 1)
    cdf = np.cumsum(P, axis=-1)
    x = np.empty((len(P), t + 1), dtype=np.int64)
    x[:, 0] = nm._draw(np.cumsum(nm.stationary(P), axis=-1), u[:, 0])
    rows = np.arange(len(P))
    for s in range(1, t + 1):
        x[:, s] = nm._draw(cdf[rows, x[:, s - 1]], u[:, s])
    return x.reshape(len(streams), batch, t + 1)


def _batches(
    k: int, t: int, batch: int, prior: str, order: int, streams: list[np.random.Generator], device: torch.device
) -> Any:
    """``draw(step)``: one batch of fresh chains per seed, each from its own generator in ``streams``."""

    def draw(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        if order == 2:
            x = _markov_batch(k, t, batch, prior, streams)
        else:
            x = np.stack([_chains(k, t, batch, prior, order, rng, truth=False)[0] for rng in streams])  # (S, B, t + 1)
        xt = torch.as_tensor(x, device=device)
        return xt[..., :t], xt[..., 1:]

    return draw


def _record(step: int, model: torch.nn.Module, test: TestSet, device: torch.device, extra: Any = None) -> dict:
    rec = {"step": step, **evaluate_kls(model, test, device)}
    if extra is not None:
        rec.update(extra(model))
    return rec


def train_minimal(cfg: MinimalModelConfig, options: RunOptions = DEFAULT_OPTIONS) -> MarkovRun:
    """SGD on the minimal model (App. E.2) for every seed; history of test KL, KL to strategies, W_k and v.

    ``options`` (:class:`verify.runtime.options.RunOptions`): device, dtype (default: ``cfg.dtype``, else float64 on
    the CPU and float32 on CUDA), seed offset, progress; with a checkpoint file the run checkpoints and resumes
    through :func:`verify.train.attention.fit` (its data generators and history included), ending with the result
    of an uninterrupted run."""
    cfg, setting = options.configure(cfg, "markov-minimal")
    dev, dtype = setting.device, setting.dtype
    S, k, t = len(cfg.seeds), cfg.k, cfg.t
    W = torch.full((S, k, k), float(cfg.w_init), dtype=dtype) + cfg.w_diag * torch.eye(k, dtype=dtype)
    model = MinimalEnsemble(W.to(dev), torch.full((S, t), float(cfg.v_init), dtype=dtype, device=dev))
    test = make_test_set(k, t, cfg.eval_n, cfg.prior)
    history: list[dict[str, Any]] = []

    def weights(m: MinimalEnsemble) -> dict[str, Any]:
        return {"W": m.W.detach().double().cpu().tolist(), "v": m.v.detach().double().cpu().tolist()}

    def evaluate(step: int) -> dict[str, Any]:
        history.append(_record(step, model, test, dev, weights))
        return history[-1]

    streams = _seed_streams(cfg.seeds)
    schedule = FitSchedule(
        cfg.steps, cfg.lr, "sgd", eval_every=cfg.eval_every, num_threads=cfg.num_threads, desc="minimal model"
    )
    hooks = FitHooks(evaluate=evaluate, **fit_checkpoint(cfg, {"history": history}, streams, dtype=setting.dtype_name))
    with setting.precision():
        fit(
            model,
            _batches(k, t, cfg.batch, cfg.prior, 2, streams, dev),
            schedule,
            options,
            seeds=cfg.seeds,
            hooks=hooks,
        )
    return MarkovRun(history, model.state(), cfg.seeds)


def probe_minimal_step(cfg: MinimalModelConfig, device: str = "cpu", steps: int = 3) -> float:
    """Seconds per update of :func:`train_minimal` at ``cfg``'s shapes on ``device``, timed over ``steps`` updates
    after one warm-up (the plan's probe, :mod:`verify.report.plan`): the same batch draw, model, loss and SGD step,
    without evaluations or checkpoints. The step is not counted from its shapes because its multiply-adds are not
    what it spends: a measured step took 18 times their time at the calibrated rate (the chain draws and the
    entry-wise work dominate)."""
    import time

    from verify.runtime.loop import torch_threads
    from verify.train.attention import per_seed_cross_entropy

    cfg, setting = RunOptions(device=device).configure(cfg, "markov-minimal")
    dev, dtype = setting.device, setting.dtype
    S, k, t = len(cfg.seeds), cfg.k, cfg.t
    W = torch.full((S, k, k), float(cfg.w_init), dtype=dtype) + cfg.w_diag * torch.eye(k, dtype=dtype)
    model = MinimalEnsemble(W.to(dev), torch.full((S, t), float(cfg.v_init), dtype=dtype, device=dev))
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    draw = _batches(k, t, cfg.batch, cfg.prior, 2, _seed_streams(cfg.seeds), dev)
    with setting.precision(), torch_threads(cfg.num_threads):
        for i in range(steps + 1):
            if i == 1:
                if dev.type == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
            inputs, targets = draw(i)
            opt.zero_grad(set_to_none=True)
            per_seed_cross_entropy(model(inputs), targets).sum().backward()
            opt.step()
        if dev.type == "cuda":
            torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def probe_transformer_step(cfg: TransformerConfig, device: str = "cpu", steps: int = 2) -> float:
    """Seconds per update of :func:`train_transformer` at ``cfg``'s shapes on ``device``, as the machine is loaded
    now (the plan's probe, :mod:`verify.report.plan`): :func:`verify.runtime.memory.update_seconds` of the real
    trainer, each run evaluated only at its first and last step on 8 test chains."""
    from verify.runtime.memory import update_seconds

    options = RunOptions(device=device)
    return update_seconds(
        lambda n: train_transformer(replace(cfg, steps=n, eval_every=10 * n, eval_n=8), options), steps
    )


def _masses(m: AttentionEnsemble, probe: np.ndarray, t: int, dev: torch.device) -> dict[str, Any]:
    """The attention part of a transformer evaluation: :func:`attention_masses` from position ``t // 2`` and layer 1's
    effective positional encoding (lags 0..POSITIONAL_LAGS-1), on the ``probe`` chains, per seed. The maps are made
    in chunks of :func:`_eval_chunk` chains, each reduced to its rows' masses (:func:`_row_masses`) before the next:
    the values of :func:`attention_masses` on one pass, bit for bit, without every layer's maps of all the chains at
    once (12 GB for the trigram claim)."""
    chunk, m64 = _eval_chunk(m, t), _as_float64(m)
    parts = []
    with torch.no_grad():
        for i in range(0, probe.shape[0], chunk):
            part = probe[i : i + chunk]  # its maps are freed once reduced to its rows' masses (copies)
            parts.append(_row_masses(m64(torch.as_tensor(part, device=dev), return_attention=True)[1], part))
    rows = {n: np.concatenate([part[n] for part in parts], axis=1) for n in parts[0]}
    rec = {n: v.tolist() for n, v in _masses_of_rows(rows, probe, from_position=t // 2).items()}
    pos = effective_positional(m, probe, dev)
    if pos is not None:  # layer 1's score by lag, per seed (Fig. 8.3 top, Fig. E.7: its pattern over training)
        rec["positional"] = pos[:, :POSITIONAL_LAGS].tolist()
    return rec


def probe_transformer_eval(cfg: TransformerConfig, device: str = "cpu", chains: int = MASS_CHAINS) -> float:
    """Seconds of one evaluation of :func:`train_transformer` at ``cfg`` on ``device``, as the machine is loaded now
    (the plan's probe, :mod:`verify.report.plan`). On ``n = min(chains, eval_n)`` test chains and a fresh ensemble,
    after a warm-up on 4 chains, its two parts are timed and scaled linearly in the chains each reads: the KLs
    (:func:`evaluate_kls`, on ``eval_n`` chains) and the attention part (:func:`_masses`, on
    ``min(MASS_CHAINS, eval_n)``), ``t_KL(n) eval_n / n + t_att(n) min(MASS_CHAINS, eval_n) / n``. Fewer chains than
    the attention part's 256 underestimate it: a full-scale evaluation took 21-24 s on the idle 2-core CPU, where this
    probe said 5.9 s on 32 chains and 19.6 s on 256 (2026-11-30)."""
    if isinstance(chains, bool) or not isinstance(chains, int) or chains < 1:
        raise ValueError(f"chains must be an integer >= 1, got {chains!r}")
    cfg, setting = RunOptions(device=device).configure(cfg, "markov-transformer")
    dev, n = setting.device, min(chains, cfg.eval_n)
    model = AttentionEnsemble.init(cfg.model, cfg.seeds, device=dev, dtype=setting.dtype)
    test = make_test_set(cfg.k, cfg.t, n, "dirichlet", cfg.order)

    with setting.precision():  # as train_transformer evaluates: inside fit
        _masses(model, test.inputs[:4], cfg.t, dev)  # the warm-up
        evaluate_kls(model, make_test_set(cfg.k, cfg.t, 4), dev)
        kls = wall_seconds(lambda: evaluate_kls(model, test, dev))
        att = wall_seconds(lambda: _masses(model, test.inputs, cfg.t, dev))
    return (kls * cfg.eval_n + att * min(MASS_CHAINS, cfg.eval_n)) / n


def train_transformer(cfg: TransformerConfig, options: RunOptions = DEFAULT_OPTIONS) -> MarkovRun:
    """Train the transformer ensemble; history of test KL and KL to each strategy, attention masses and layer 1's
    effective positional encoding (``positional``, lags 0..POSITIONAL_LAGS-1 per seed), final attention maps.

    ``extra`` holds ``maps`` (per layer, the attention rows of the first test sequence of every seed,
    ``(S, H, T, T)`` lists) and ``inputs`` (that sequence). ``options``: as :func:`train_minimal` (the dtype
    defaults to ``cfg.dtype``, float32).
    """
    cfg, setting = options.configure(cfg, "markov-transformer")
    dev, dtype = setting.device, setting.dtype
    model = AttentionEnsemble.init(cfg.model, cfg.seeds, device=dev, dtype=dtype)
    test = make_test_set(cfg.k, cfg.t, cfg.eval_n, "dirichlet", cfg.order)
    probe = test.inputs[: min(MASS_CHAINS, cfg.eval_n)]
    history: list[dict[str, Any]] = []

    def evaluate(step: int) -> dict[str, Any]:
        history.append(_record(step, model, test, dev, lambda m: _masses(m, probe, cfg.t, dev)))
        return history[-1]

    streams = _seed_streams(cfg.seeds)
    schedule = FitSchedule(
        cfg.steps,
        cfg.lr,
        cfg.optimizer,
        cfg.weight_decay,
        eval_every=cfg.eval_every,
        num_threads=cfg.num_threads,
        desc="transformer",
    )
    hooks = FitHooks(evaluate=evaluate, **fit_checkpoint(cfg, {"history": history}, streams, dtype=setting.dtype_name))
    batches = _batches(cfg.k, cfg.t, cfg.batch, cfg.prior, cfg.order, streams, dev)
    check_free_memory(
        evaluation_memory(cfg),
        dev,
        f"the evaluations of {len(cfg.seeds)} seeds ({cfg.eval_n} test chains of length {cfg.t}, attention masses on "
        f"{min(MASS_CHAINS, cfg.eval_n)}, {cfg.model.layers} layers, {cfg.model.heads} heads)",
        f"train fewer seeds per run or lower eval_n, {OVERRIDE_HINT}",
        options.ignore_memory_check,
    )
    with setting.precision():
        fit(model, batches, schedule, options, seeds=cfg.seeds, hooks=hooks)
    with torch.no_grad():
        _, maps = _as_float64(model)(torch.as_tensor(test.inputs[:1], device=dev), return_attention=True)
    extra = {
        "maps": [m[:, 0].cpu().numpy() for m in maps],
        "inputs": test.inputs[0].tolist(),
        "positional": effective_positional(model, probe, dev),
    }
    return MarkovRun(history, model.state(), cfg.seeds, extra)
