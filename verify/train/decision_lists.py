r"""The one-layer softmax attention model of Karp thesis Ch. 4 in torch: gradients by autograd and finite
differences, one GD step of ``V`` (Fig. 4.1), exact population GD on ``W`` (Theorem 4.3) and the Hessian at
initialisation (docs/decision_lists.md).

The model (Eq. 4.1) with one-hot embeddings ``X = [e_{i_1} | ... | e_{i_n}]`` (``L x n``) is

.. math:: f_{W,V}(X) = \sigma(V X \sigma(X^\top W X)) \in \mathbb{R}^{L \times n},

``sigma`` the softmax over the columns, and the loss of a sequence is ``(1/n) sum_j -log f(X)_{y_j, j}`` (Eq. 4.2).
:func:`model_dense` computes it literally with the one-hot matrices; :func:`position_logits` computes the same
logits by indexing (``X^T W X`` is ``W[s_i, s_j]`` and ``V X`` is ``V[:, s]``), which is what training uses; a
test checks that both agree. Parameters may carry a leading seed axis ``(S, L, L)``: seeds never interact.

The shared decoder model of :mod:`verify.train.attention` (causal mask, residual stream, learned embeddings) is a
different architecture, so it is not used here; population GD does use :func:`verify.runtime.loop.run_loop`.

Memory: :func:`population_gd_w`, :func:`one_gd_step_v` and :func:`hessian_lambda_max` compare their estimate
(:func:`memory_estimate`, :func:`hessian_memory_estimate`) with the device's free memory before they allocate
(:func:`verify.runtime.memory.preflight`: ``InsufficientMemoryError`` unless ``tvk --ignore-memory-check``), and a
population GD run whose first updates predict more than a minute prints its memory and time estimate on stderr.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from numerics import decision_lists as nd
from theory import decision_lists as td
from theory._docstrings import fill_doc
from verify.runtime.checkpoint import Checkpoint, Evaluations, TrainerState, resume
from verify.runtime.device import resolve_device
from verify.runtime.divergence import NonFiniteGuard
from verify.runtime.loop import Bar, run_loop, torch_threads
from verify.runtime.memory import preflight
from verify.runtime.options import DEFAULT_OPTIONS, RunOptions, RunSetting

#: torch intra-op threads on the CPU: these tensors are tiny, and on a loaded machine a second thread makes each op
#: ~1000x slower (thread synchronisation), so CPU work runs on one thread.
CPU_THREADS = 1

__all__ = [
    "CPU_THREADS",
    "GDRun",
    "GDWVRun",
    "OneStepV",
    "PopulationGDConfig",
    "PopulationGDWVConfig",
    "attention_jacobian_autograd",
    "autograd_gradients",
    "directional_derivatives",
    "finite_difference_gradients",
    "hessian_lambda_max",
    "hessian_lambda_max_wv",
    "hessian_memory_estimate",
    "memory_estimate",
    "model_dense",
    "one_gd_step_v",
    "one_hot",
    "per_sequence_loss",
    "population_gd_w",
    "population_gd_wv",
    "position_logits",
    "sequence_loss",
]

ITEMSIZE = 8  # every tensor of this module is float64 (or int64 tokens and labels)


def one_hot(tokens: torch.Tensor, L: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """``X`` for every sequence: ``(B, L, n)`` with ``X[b, :, j] = e_{tokens[b, j]}``."""
    return torch.nn.functional.one_hot(tokens, L).to(dtype).transpose(-1, -2)


def model_dense(W: torch.Tensor, V: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    r"""``f_{W,V}(X) = sigma(V X sigma(X^T W X))`` literally, for ``X (B, L, n)`` and ``W, V (..., L, L)``:
    returns ``(..., B, L, n)``, every column a distribution over the ``L`` labels."""
    scores = torch.einsum("bli,...lm,bmj->...bij", X, W, X)  # X^T W X, (..., B, n, n)
    att = torch.softmax(scores, dim=-2)  # columns
    logits = torch.einsum("...lk,bki,...bij->...blj", V, X, att)  # V X sigma(X^T W X)
    return torch.softmax(logits, dim=-2)


def position_logits(W: torch.Tensor, V: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    r"""The logits ``z = V X sigma(X^T W X)`` by indexing: ``W, V (..., L, L)``, ``tokens (B, n)`` ->
    ``(..., B, n, L)`` (position ``j``'s logits over the labels)."""
    scores = W[..., tokens[:, :, None], tokens[:, None, :]]  # (..., B, n_i, n_j) = W[s_i, s_j]
    att = torch.softmax(scores, dim=-2)
    VX = V[..., :, tokens].movedim(-3, -2)  # (..., B, L, n_i) = V[:, s_i]
    return (VX @ att).transpose(-1, -2)


def per_sequence_loss(W: torch.Tensor, V: torch.Tensor, tokens: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The loss (4.2) of every sequence, ``(1/n) sum_j -log f_{y_j, j}``; ``labels`` ``(B, n)`` or per seed
    ``(S, B, n)``; returns ``(..., B)``."""
    z = position_logits(W, V, tokens)
    logp = torch.log_softmax(z, dim=-1)
    lab = labels.expand(*z.shape[:-1]) if labels.dim() < z.dim() - 1 else labels
    return -torch.gather(logp, -1, lab[..., None])[..., 0].mean(dim=-1)


def sequence_loss(W: torch.Tensor, V: torch.Tensor, tokens: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean over sequences of the loss (4.2) (:func:`per_sequence_loss`); returns ``(...)``."""
    return per_sequence_loss(W, V, tokens, labels).mean(dim=-1)


def memory_estimate(n_seeds: int, batch: int, n: int, L: int) -> int:
    """Estimated peak bytes of one gradient of :func:`sequence_loss` on ``batch`` sequences of length ``n`` over
    ``L`` tokens for ``n_seeds`` seeds, or of one evaluation of :func:`population_gd_w` (an upper estimate).

    Per (seed, sequence), float64: four ``(n, n)`` buffers (the scores ``W[s_i, s_j]``, their softmax and the two
    gradients) and five ``(n, L)`` buffers (``V[:, s]``, the contiguous copy the batched product makes, the
    logits, the log-probabilities, and one gradient or the evaluation's scattered copy of the logits). Shared:
    int64 tokens and the broadcast ``(n, n)`` index per sequence, int64 labels per (seed, sequence), and ``W``,
    ``V``, the gradient and the GD step ``(S, L, L)``. Measured peaks (tests) are 1.3-2.4 times smaller.
    """
    S, B, n, L = int(n_seeds), int(batch), int(n), int(L)
    per_sequence = 4 * n * n + 5 * n * L
    shared = B * (n + n * n) + S * B * n + 4 * S * L * L
    return (S * B * per_sequence + shared) * ITEMSIZE


def hessian_memory_estimate(n_subsets: int, n: int, L: int) -> int:
    """Estimated peak bytes of :func:`hessian_lambda_max` (an upper estimate): four ``(L^2, L^2)`` float64 matrices
    (the Hessian's rows, their stack, the symmetrised copy and the eigensolver's workspace) and twice one gradient
    of the loss on the ``n_subsets`` sequences (:func:`memory_estimate`; the graph built for the second derivative
    and one backward pass through it)."""
    return _hessian_bytes(int(L) ** 2, n_subsets, n, L)


def _hessian_bytes(n_params: int, n_subsets: int, n: int, L: int) -> int:
    """Estimated peak bytes of the Hessian of the population loss in ``n_params`` parameters (an upper estimate).

    Parameters
    ----------
    n_params : int
        The Hessian's side: ``L^2`` for ``W`` alone, ``2 L^2`` for ``(W, V)``.
    n_subsets, n, L : int
        The population's sequences, their length and the vocabulary size (:func:`memory_estimate`).

    Returns
    -------
    int
        Four ``(n_params, n_params)`` float64 matrices plus twice one gradient of the loss on the ``n_subsets``
        sequences (:func:`hessian_memory_estimate` says why).
    """
    return 4 * n_params**2 * ITEMSIZE + 2 * memory_estimate(1, n_subsets, n, L)


def _dense_loss(W: torch.Tensor, V: torch.Tensor, seq: Sequence[int], ys: Sequence[int]) -> torch.Tensor:
    L = W.shape[-1]
    X = one_hot(torch.tensor([list(seq)]), L, W.dtype)
    f = model_dense(W, V, X)[0]  # (L, n)
    return -torch.log(f[list(ys), torch.arange(len(seq))]).mean()


def autograd_gradients(
    task: td.DecisionListTask, W: np.ndarray, V: np.ndarray, seq: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """``(grad_W, grad_V)`` of one sequence's loss (4.2) by torch autograd through :func:`model_dense` (float64)."""
    with torch_threads(CPU_THREADS):
        ys = td.labels(task, seq)
        Wt = torch.tensor(W, dtype=torch.float64, requires_grad=True)
        Vt = torch.tensor(V, dtype=torch.float64, requires_grad=True)
        _dense_loss(Wt, Vt, seq, ys).backward()
        return Wt.grad.numpy().copy(), Vt.grad.numpy().copy()


def finite_difference_gradients(
    task: td.DecisionListTask, W: np.ndarray, V: np.ndarray, seq: Sequence[int], h: float = 1e-5
) -> tuple[np.ndarray, np.ndarray]:
    """Central differences ``(loss(x + h e) - loss(x - h e)) / 2h`` of one sequence's loss, every entry of ``W`` and ``V``
    (float64, :func:`model_dense`): error ``O(h^2)`` plus rounding ``O(eps / h)``."""
    with torch_threads(CPU_THREADS):
        ys = td.labels(task, seq)
        base = {"W": torch.tensor(W, dtype=torch.float64), "V": torch.tensor(V, dtype=torch.float64)}
        out = {}
        with torch.no_grad():
            for name in ("W", "V"):
                g = np.zeros(base[name].shape)
                for idx in np.ndindex(*g.shape):
                    vals = []
                    for sign in (1.0, -1.0):
                        x = {k: v.clone() for k, v in base.items()}
                        x[name][idx] += sign * h
                        vals.append(float(_dense_loss(x["W"], x["V"], seq, ys)))
                    g[idx] = (vals[0] - vals[1]) / (2 * h)
                out[name] = g
        return out["W"], out["V"]


def attention_jacobian_autograd(W: np.ndarray, seq: Sequence[int], a: int) -> np.ndarray:
    """``J[i, k] = dp_i / dW[k, a]`` by autograd, ``p`` the attention column of query ``a`` indexed by token
    (``p = X sigma(X^T W X)`` at ``a``'s position), ``(L, L)``."""
    with torch_threads(CPU_THREADS):
        L = W.shape[0]
        seq = list(td.check_sequence(L, seq))
        if a not in seq:
            raise ValueError(f"query token {a} is not in the sequence {seq}")
        X = one_hot(torch.tensor([seq]), L)[0]
        j = seq.index(a)

        def column(w: torch.Tensor) -> torch.Tensor:
            Wf = torch.tensor(W, dtype=torch.float64).clone()
            Wf[:, a] = w
            return (X @ torch.softmax(X.T @ Wf @ X, dim=0))[:, j]

        return torch.autograd.functional.jacobian(column, torch.tensor(W[:, a], dtype=torch.float64)).numpy()


def directional_derivatives(
    task: td.DecisionListTask, W: np.ndarray, V: np.ndarray, S: np.ndarray, a: int, v: np.ndarray
) -> np.ndarray:
    """``<grad_w L(W, V; s), v>`` for every sequence ``s`` of ``S`` by autograd of its own loss (4.2), ``w`` = column
    ``a`` of ``W``."""
    with torch_threads(CPU_THREADS):
        S = nd.check_sequences(task.L, S)
        labels = torch.tensor(nd.labels_array(task, S))
        Vt = torch.tensor(V, dtype=torch.float64)
        vt = torch.tensor(v, dtype=torch.float64)
        out = []
        for row, lab in zip(torch.tensor(S), labels):
            Wt = torch.tensor(W, dtype=torch.float64, requires_grad=True)
            (grad,) = torch.autograd.grad(sequence_loss(Wt, Vt, row[None], lab[None]), Wt)
            out.append(float(grad[:, a] @ vt))
        return np.array(out)


@dataclass
class OneStepV:
    """:func:`one_gd_step_v`: ``V_0``, ``V_1`` (``(L, L)``, float64) and, per class of entries, the mean of
    ``V_1 - V_0`` and its standard error over the chunks (a class without entries in the task, such as the
    antishifts of :func:`theory.decision_lists.cyclic_task` at ``L = 8``, where they coincide with the shifts, has no
    mean and is left out)."""

    V0: np.ndarray
    V1: np.ndarray
    classes: dict[str, dict[str, float]]
    chunks: int


def one_gd_step_v(
    task: td.DecisionListTask,
    n: int,
    eta: float,
    *,
    v0_std: float,
    samples: int,
    chunks: int,
    seed: int,
    options: RunOptions = DEFAULT_OPTIONS,
) -> OneStepV:
    r"""One GD step of the model on ``V`` from ``W = 0``, ``V_0[i, j] ~ N(0, v0_std^2)`` (Fig. 4.1), on ``samples``
    fresh uniform ``n``-permutations split into ``chunks`` equal chunks: each chunk gives
    ``V_1^{(c)} = V_0 - eta grad_V L_chunk`` by autograd; ``V_1`` is their mean (the step on all samples), and the
    standard error of each class mean of ``V_1 - V_0`` is the spread over chunks over ``sqrt(chunks)``.
    ``options``: the device, the dtype (default float64), the seed offset, the memory-check override."""
    if chunks < 2 or samples % chunks:
        raise ValueError(f"need chunks >= 2 dividing samples, got samples = {samples}, chunks = {chunks}")
    setting = options.setting("decision-lists-one-step", (seed,), default_dtype="float64")
    with torch_threads(_threads(setting.device)), setting.precision():
        return _one_gd_step_v(task, (n, eta, v0_std), samples, chunks, setting, options.ignore_memory_check)


def _threads(dev: torch.device) -> int | None:
    return CPU_THREADS if dev.type == "cpu" else None


def _one_gd_step_v(
    task: td.DecisionListTask,
    step_of: tuple[int, float, float],
    samples: int,
    chunks: int,
    setting: RunSetting,
    ignore_memory_check: bool,
) -> OneStepV:
    (n, eta, v0_std), (seed,), dev, dt = step_of, setting.seeds, setting.device, setting.dtype
    L, n = td.check_sequence_length(task.L, n)
    at = preflight(
        memory_estimate(1, samples // chunks, n, L),
        dev,
        f"one GD step of V ({samples // chunks} sequences per chunk, n = {n}, L = {L})",
        "use more chunks (fewer sequences per chunk)",
        steps=chunks,
        n_seeds=1,
        desc=f"one GD step of V (L={L}, n={n})",
        ignore=ignore_memory_check,
    )
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    V0 = torch.randn((L, L), generator=gen, dtype=torch.float64) * v0_std
    rng = np.random.default_rng(seed)
    idx = nd.class_indices(task)
    mask = np.ones((L, L), dtype=bool)
    for r, t in idx.values():
        mask[r, t] = False
    per_chunk: dict[str, list[float]] = {k: [] for k in td.ENTRY_CLASSES}
    steps = []
    for chunk in range(chunks):
        at(chunk)
        S = nd.sample_sequences(L, n, samples // chunks, rng)
        tokens = torch.tensor(S, device=dev)
        labels = torch.tensor(nd.labels_array(task, S), device=dev)
        W = torch.zeros((L, L), dtype=dt, device=dev)
        V = V0.to(dev, dt).clone().requires_grad_(True)
        (gV,) = torch.autograd.grad(sequence_loss(W, V, tokens, labels), V)
        step = (-eta * gV).double().cpu().numpy()
        steps.append(step)
        for k, (r, t) in idx.items():
            if len(r):
                per_chunk[k].append(float(step[r, t].mean()))
        if mask.any():
            per_chunk["generic"].append(float(step[mask].mean()))
    classes = {
        k: {"mean": float(np.mean(x)), "se": float(np.std(x, ddof=1) / np.sqrt(chunks))}
        for k, x in per_chunk.items()
        if x
    }
    V0n = V0.numpy()
    return OneStepV(V0n, V0n + np.mean(steps, axis=0), classes, chunks)


#: The docstring sections the population-GD configurations share (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "members": """tasks : tuple of theory.decision_lists.DecisionListTask
    One task per member (same vocabulary size L).
n : int
    Sequence length (every n-subset is in the population).""",
}


@fill_doc(_DOC)
@dataclass(frozen=True)
class PopulationGDConfig:
    """Gradient descent on the population loss in ``W`` (:func:`population_gd_w`), one entry per ensemble member.

    Parameters
    ----------
    {{members}}
    cs, etas : tuple of float
        ``V = c P`` and the step size of each member.
    steps : int
        Updates.
    seeds : tuple of int
        A label per member (the run has no randomness: population GD from ``W = 0``).
    """

    tasks: tuple[td.DecisionListTask, ...]
    n: int
    cs: tuple[float, ...]
    etas: tuple[float, ...]
    steps: int
    seeds: tuple[int, ...]

    def __post_init__(self) -> None:
        for name in ("tasks", "cs", "etas", "seeds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if not (len(self.tasks) == len(self.cs) == len(self.etas) == len(self.seeds)) or not self.tasks:
            raise ValueError("need one task, c, eta and seed per seed (and at least one)")
        if any(t.L != self.tasks[0].L for t in self.tasks):
            raise ValueError("every task of a batch must have the same vocabulary size L")


@dataclass
class GDRun:
    """:func:`population_gd_w`: per evaluated step (``steps``) and seed, the population loss, the accuracy and the
    fraction of columns ordered by their lists; the final ``W`` ``(S, L, L)``; the first perfect step per seed."""

    steps: list[int]
    loss: np.ndarray
    accuracy: np.ndarray
    ordered: np.ndarray
    W: np.ndarray
    first_perfect: list[int | None]


def _population_tensors(
    tasks: Sequence[td.DecisionListTask],
    cs: Sequence[float],
    etas: Sequence[float],
    S: np.ndarray,
    dev: torch.device,
    dt: torch.dtype,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The tensors population GD over a batch of members starts from (:func:`population_gd_w`,
    :func:`population_gd_wv`).

    Parameters
    ----------
    tasks : sequence of theory.decision_lists.DecisionListTask
        One task per member (same vocabulary size ``L``).
    cs, etas : sequence of float
        The scale of ``c P`` and the step size of each member.
    S : np.ndarray
        The population, every ``n``-subset as a row, ``(B, n)``.
    dev : torch.device
        Where every tensor lives.
    dt : torch.dtype
        The dtype of ``cP``, ``eta`` and ``W`` (tokens and labels keep their integer dtype).

    Returns
    -------
    tokens : torch.Tensor
        ``S`` as a tensor, ``(B, n)``.
    labels : torch.Tensor
        Each member's labels of every sequence, ``(S, B, n)``.
    cP : torch.Tensor
        Each member's ``c P``, ``(S, L, L)``.
    eta : torch.Tensor
        Each member's step size, ``(S, 1, 1)``.
    W : torch.Tensor
        ``W_0 = 0``, ``(S, L, L)``, requiring gradients.
    """
    L = tasks[0].L
    tokens = torch.tensor(S, device=dev)
    labels = torch.tensor(np.stack([nd.labels_array(t, S) for t in tasks]), device=dev)  # (S, B, n)
    cP = torch.tensor(np.stack([c * nd.permutation_matrix(t) for t, c in zip(tasks, cs)]), device=dev, dtype=dt)
    eta = torch.tensor(list(etas), dtype=dt, device=dev)[:, None, None]
    W = torch.zeros((len(tasks), L, L), dtype=dt, device=dev, requires_grad=True)
    return tokens, labels, cP, eta, W


def population_gd_w(cfg: PopulationGDConfig, options: RunOptions = DEFAULT_OPTIONS) -> GDRun:
    r"""Gradient descent on the exact population loss in ``W`` with ``V = c_s P_s`` fixed (Theorem 4.3), one task,
    ``c`` and ``eta`` per seed, all seeds in one batched tensor ``W (S, L, L)`` starting at 0. The population is every
    ``n``-subset (a uniform ``n``-permutation gives the same loss); gradients by autograd.

    ``options`` (:class:`verify.runtime.options.RunOptions`): device, dtype (default float64 on every device),
    progress, the memory-check override (the run has no randomness: the seed offset only relabels the members).
    With a checkpoint file the run saves ``W`` and the per-step records every ``options.checkpoint_every`` steps,
    every ``CHECKPOINT_SECONDS``, at the end and on Ctrl-C, and resumes from a trusted checkpoint of the same
    configuration (:func:`verify.runtime.checkpoint.resume`) with the result of an uninterrupted run."""
    cfg, setting = options.configure(cfg, "decision-lists-population-gd", default_dtype="float64")
    with torch_threads(_threads(setting.device)), setting.precision():
        ckpt = Checkpoint.for_run(options, setting, "decision_lists_population_gd", cfg, cfg.steps)
        return _population_gd_w(cfg, setting, options, ckpt)


def _population_gd_w(
    cfg: PopulationGDConfig, setting: RunSetting, options: RunOptions, ckpt: Checkpoint | None
) -> GDRun:
    tasks, n, cs, etas, steps, seeds = cfg.tasks, cfg.n, cfg.cs, cfg.etas, cfg.steps, cfg.seeds
    dev, dt = setting.device, setting.dtype
    L = tasks[0].L
    S = nd.subsets_array(L, n)
    at = preflight(
        memory_estimate(len(tasks), len(S), n, L),
        dev,
        f"population GD on W ({len(tasks)} seeds x {len(S)} subsets, n = {n}, L = {L})",
        "train fewer seeds per call",
        steps=steps,
        n_seeds=len(tasks),
        desc=f"population GD on W (L={L}, n={n})",
        eval_every=1,  # run_loop's default: it records every step
        ignore=options.ignore_memory_check,
    )
    tokens, labels, V, eta_t, W = _population_tensors(tasks, cs, etas, S, dev, dt)
    rec: dict[str, list] = {"steps": [], "loss": [], "accuracy": [], "ordered": []}

    def evaluate(step: int) -> dict[str, float]:
        with torch.no_grad():
            z = position_logits(W, V, tokens)  # (S, B, n, L)
            zy = torch.gather(z, -1, labels[..., None])[..., 0]
            other = z.scatter(-1, labels[..., None], -torch.inf).amax(-1)
            acc = (zy > other).double().mean(dim=(-1, -2)).cpu().numpy()
            loss = sequence_loss(W, V, tokens, labels).double().cpu().numpy()
            Wn = W.detach().double().cpu().numpy()
        rec["steps"].append(step)
        rec["loss"].append(loss.tolist())  # plain data (a checkpoint holds it); float64 values unchanged
        rec["accuracy"].append(acc.tolist())
        rec["ordered"].append([float(nd.column_order_ok(Wn[i], t).mean()) for i, t in enumerate(tasks)])
        return {"loss": float(loss.max()), "accuracy": float(acc.min())}

    def step_fn(step: int) -> torch.Tensor:
        at(step)  # the time estimate of a long run, after a few updates
        loss = sequence_loss(W, V, tokens, labels)
        (g,) = torch.autograd.grad(loss.sum(), W)
        with torch.no_grad():
            W.sub_(eta_t * g)
        return loss.detach()

    guard = NonFiniteGuard(tuple(seeds), "decision-lists-population-gd", "lower eta", weights={"W": W})
    evaluations = Evaluations(evaluate)
    state = TrainerState({"W": W}, records={"rec": rec}, evaluations=evaluations)
    start = resume(ckpt, state, options.checkpoint_every)
    run_loop(
        step_fn,
        steps,
        evaluate=evaluations,
        guard=guard,
        resumption=start,
        bar=Bar(enabled=options.progress, desc="population GD on W"),
    )
    acc = np.array(rec["accuracy"])
    first = [next((rec["steps"][i] for i in range(len(acc)) if acc[i, s] == 1.0), None) for s in range(len(tasks))]
    W_final = W.detach().double().cpu().numpy()
    return GDRun(rec["steps"], np.array(rec["loss"]), acc, np.array(rec["ordered"]), W_final, first)


def hessian_lambda_max(
    task: td.DecisionListTask, n: int, c: float, device: str = "auto", *, ignore_memory_check: bool = False
) -> float:
    """The largest eigenvalue of the Hessian of the population loss in ``W`` (all ``L^2`` entries) at ``W = 0``,
    ``V = cP``, uniform ``n``-subsets, by torch autograd (float64 whatever the run's training dtype: the step size
    ``1 / lambda_max`` of Theorem 4.3 is a judged quantity). ``ignore_memory_check`` is ``tvk
    --ignore-memory-check`` (:attr:`RunOptions.ignore_memory_check`): run even when the estimate does not fit."""
    dev = resolve_device(device)
    with torch_threads(_threads(dev)):
        return _hessian_lambda_max(task, n, c, dev, ignore_memory_check)


def _hessian_lambda_max(task: td.DecisionListTask, n: int, c: float, dev: torch.device, ignore: bool) -> float:
    L = task.L
    V = torch.tensor(c * nd.permutation_matrix(task), device=dev)

    def loss(w: torch.Tensor, tokens: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return sequence_loss(w.view(L, L), V, tokens, labels)

    x0 = torch.zeros(L * L, dtype=torch.float64, device=dev)
    return _population_hessian_max(task, n, "W", loss, x0, dev, ignore)


def _population_hessian_max(
    task: td.DecisionListTask,
    n: int,
    wrt: str,
    loss: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
    x0: torch.Tensor,
    dev: torch.device,
    ignore: bool,
) -> float:
    """The largest eigenvalue of the Hessian of a population loss of ``task`` at ``x0``, by torch autograd.

    The population is every ``n``-subset; the memory check (:func:`verify.runtime.memory.preflight`) runs before
    anything the size of the population or the Hessian is allocated.

    Parameters
    ----------
    task : theory.decision_lists.DecisionListTask
        The task whose labels the loss is taken on.
    n : int
        Sequence length.
    wrt : str
        What the parameters are (``"W"``, ``"(W, V)"``), for the refusal's message.
    loss : callable
        ``loss(x, tokens, labels)``: the population loss at the flat parameters ``x``, given the sequences
        ``tokens (B, n)`` and their labels ``(B, n)``.
    x0 : torch.Tensor
        The point, flat, float64, on ``dev``; its length (``L^2``, ``2 L^2``) is the Hessian's side.
    dev : torch.device
        Where the population and the Hessian live.
    ignore : bool
        Run even when the memory estimate does not fit (``tvk --ignore-memory-check``).

    Returns
    -------
    float
        The largest eigenvalue of the symmetrised Hessian ``(H + H^T) / 2``.
    """
    L, P = task.L, x0.numel()
    S = nd.subsets_array(L, n)
    preflight(
        _hessian_bytes(P, len(S), n, L),
        dev,
        f"the Hessian of the population loss in {wrt} ({P} x {P}, {len(S)} subsets of size {n})",
        "use a smaller vocabulary L or subset size n",
        steps=1,
        n_seeds=1,
        desc="Hessian",
        ignore=ignore,
    )
    tokens = torch.tensor(S, device=dev)
    labels = torch.tensor(nd.labels_array(task, S), device=dev)
    H = torch.autograd.functional.hessian(lambda x: loss(x, tokens, labels), x0)
    return float(torch.linalg.eigvalsh((H + H.T) / 2).max())


# --- Theorem 4.4: population GD on W and V -------------------------------------------------------------------------


@fill_doc(_DOC)
@dataclass(frozen=True)
class PopulationGDWVConfig:
    """Gradient descent on the population loss in ``W`` and ``V`` (:func:`population_gd_wv`), one entry per member.

    Parameters
    ----------
    {{members}}
    V0s : tuple of np.ndarray
        ``V_0`` of each member, ``(L, L)``; ``W_0 = 0``.
    cs : tuple of float
        The scale of ``cP`` each member's ``||V_t - cP||_inf`` is measured against.
    etas : tuple of float
        The step size of each member.
    steps : int
        Updates (the same for every member).
    seeds : tuple of int
        A label per member (the run has no randomness).
    """

    tasks: tuple[td.DecisionListTask, ...]
    n: int
    V0s: tuple[np.ndarray, ...]
    cs: tuple[float, ...]
    etas: tuple[float, ...]
    steps: int
    seeds: tuple[int, ...]

    def __post_init__(self) -> None:
        for name in ("tasks", "V0s", "cs", "etas", "seeds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if (
            not (len(self.tasks) == len(self.V0s) == len(self.cs) == len(self.etas) == len(self.seeds))
            or not self.tasks
        ):
            raise ValueError("need one task, V0, c, eta and seed per seed (and at least one)")
        L = self.tasks[0].L
        if any(t.L != L for t in self.tasks) or any(np.shape(v) != (L, L) for v in self.V0s):
            raise ValueError("every task of a batch must have the same vocabulary size L, and every V0 shape (L, L)")
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 0:
            raise ValueError(f"steps must be an int >= 0, got {self.steps!r}")


@dataclass
class GDWVRun:
    """:func:`population_gd_wv`: per step ``t = 0 .. steps`` and member, the population loss at ``(W_t, V_t)``,
    whether every position of every sequence is classified correctly (``perfect``), ``||V_t - cP||_inf``
    (``v_dev``) and, for ``t >= 1``, ``||V_t - V_{t-1}||_inf`` (``v_step``, row 0 is 0); the final ``W``, ``V``
    ``(S, L, L)``."""

    loss: np.ndarray
    perfect: np.ndarray
    v_dev: np.ndarray
    v_step: np.ndarray
    W: np.ndarray
    V: np.ndarray


def population_gd_wv(cfg: PopulationGDWVConfig, options: RunOptions = DEFAULT_OPTIONS) -> GDWVRun:
    r"""Gradient descent on the exact population loss in ``W`` and ``V`` (Theorem 4.4: ``W_{t+1} = W_t - eta
    grad_W L``, ``V_{t+1} = V_t - eta grad_V L``) from ``W_0 = 0`` and each member's ``V_0``, all members in one
    batched tensor, gradients by autograd, every step recorded (:class:`GDWVRun`). The population is every
    ``n``-subset (a uniform ``n``-permutation gives the same loss). ``options``: device and dtype (default float64);
    the run has no randomness."""
    cfg, setting = options.configure(cfg, "decision-lists-population-gd-wv", default_dtype="float64")
    dev, dt = setting.device, setting.dtype
    with torch_threads(_threads(dev)), setting.precision():
        tasks, L = cfg.tasks, cfg.tasks[0].L
        S = nd.subsets_array(L, cfg.n)
        at = preflight(
            memory_estimate(len(tasks), len(S), cfg.n, L) + (cfg.steps + 1) * len(tasks) * 4 * ITEMSIZE,
            dev,
            f"population GD on W and V ({len(tasks)} seeds x {len(S)} subsets, n = {cfg.n}, L = {L}, "
            f"{cfg.steps} steps recorded)",
            "train fewer seeds or steps per call",
            steps=cfg.steps,
            n_seeds=len(tasks),
            desc=f"population GD on W and V (L={L}, n={cfg.n})",
            ignore=options.ignore_memory_check,
        )
        tokens, labels, cP, eta, W = _population_tensors(tasks, cfg.cs, cfg.etas, S, dev, dt)
        V = torch.tensor(np.stack(cfg.V0s), dtype=dt, device=dev).requires_grad_(True)
        rows = cfg.steps + 1
        loss_rec = torch.zeros((rows, len(tasks)), dtype=torch.float64, device=dev)
        perfect_rec = torch.zeros((rows, len(tasks)), dtype=torch.bool, device=dev)
        dev_rec = torch.zeros((rows, len(tasks)), dtype=torch.float64, device=dev)
        step_rec = torch.zeros((rows, len(tasks)), dtype=torch.float64, device=dev)
        for t in range(rows):
            at(t)
            z = position_logits(W, V, tokens)  # (S, B, n, L)
            zy = torch.gather(z, -1, labels[..., None])[..., 0]
            loss = (torch.logsumexp(z, dim=-1) - zy).mean(dim=(-1, -2))
            with torch.no_grad():
                other = z.scatter(-1, labels[..., None], -torch.inf).amax(-1)
                loss_rec[t] = loss.detach().double()
                perfect_rec[t] = (zy > other).flatten(1).all(dim=1)
                dev_rec[t] = (V - cP).abs().flatten(1).amax(dim=1).double()
            if t == rows - 1:
                break
            gW, gV = torch.autograd.grad(loss.sum(), (W, V))
            with torch.no_grad():
                W.sub_(eta * gW)
                V.sub_(eta * gV)
                step_rec[t + 1] = (eta * gV).abs().flatten(1).amax(dim=1).double()
            if not bool(torch.isfinite(W).all() and torch.isfinite(V).all()):
                raise FloatingPointError(f"population GD on W and V diverged at step {t + 1}: lower eta")
        return GDWVRun(
            loss_rec.cpu().numpy(),
            perfect_rec.cpu().numpy(),
            dev_rec.cpu().numpy(),
            step_rec.cpu().numpy(),
            W.detach().double().cpu().numpy(),
            V.detach().double().cpu().numpy(),
        )


def hessian_lambda_max_wv(
    task: td.DecisionListTask,
    n: int,
    V0: np.ndarray,
    W0: np.ndarray | None = None,
    device: str = "auto",
    *,
    ignore_memory_check: bool = False,
) -> float:
    """The largest eigenvalue of the Hessian of the population loss in ``(W, V)`` (all ``2 L^2`` entries) at
    ``(W0, V0)`` (``W0`` None: 0), uniform ``n``-subsets, by torch autograd in float64 (Theorem 4.4's
    ``lambda_max``)."""
    dev = resolve_device(device)
    L = task.L
    with torch_threads(_threads(dev)):

        def loss(x: torch.Tensor, tokens: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            return sequence_loss(x[: L * L].view(L, L), x[L * L :].view(L, L), tokens, labels)

        w0 = np.zeros((L, L)) if W0 is None else np.asarray(W0, dtype=np.float64)
        x0 = torch.tensor(np.concatenate([w0.ravel(), np.asarray(V0, dtype=np.float64).ravel()]), device=dev)
        return _population_hessian_max(task, n, "(W, V)", loss, x0, dev, ignore_memory_check)
