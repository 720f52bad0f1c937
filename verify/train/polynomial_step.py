r"""The fast training step of :func:`verify.train.polynomial.train`: a hand-written gradient, an execution strategy chosen by
size, and a memory/time plan made before the run (measurements: docs/benchmarks.md).

Gradient. For the network of :mod:`verify.train.homogeneous`, :math:`P = \sum_j U_j x_j` (pre-activations, (S, n, m)),
:math:`A = P^{\mathrm{deg}}`, :math:`F = A W` and the mean cross-entropy :math:`L = \frac1n\sum_x
\mathrm{CE}(F_x, y_x)`, the gradient is, with :math:`G = \mathrm{softmax}(F) - e_y`,

.. math:: \partial_W L = \tfrac1n A^\top G, \qquad \partial_P L = \tfrac{\mathrm{deg}}{n}\, P^{\mathrm{deg}-1}
          \odot (G W^\top), \qquad \partial_{U_{j,a}} L = \sum_{x:\,x_j = a} \partial_P L(x)

(the last sum is an ``index_add`` for one-hot blocks, :math:`(\partial_P L)^\top x` for dense inputs). Written out,
a step is three matrix products (6 n m C flop per seed), one gather, two element-wise passes and one scatter, about
half the memory traffic of the same step through autograd (``pow`` backward, layout copies, zero fills). The
regulariser's gradient (S m (kd + C) entries) is written out too (``verify.train.polynomial._add_regulariser_gradient``).

Points are processed in chunks (gradients accumulated): on the CPU chunks of about ``CPU_CACHE_BYTES`` per buffer
keep the working set in cache; on a GPU, chunks as large as the free memory allows. On the CPU the chunk size does
not depend on the strategy, so every strategy performs the same floating-point operations per seed (on a GPU a
batched launch may get smaller chunks, since it holds S seeds' buffers at once: the sums then differ by round-off).

Strategies (:data:`STRATEGIES`): ``batched`` runs all S seeds through one set of kernels (``bmm`` with a seed
dimension), ``loop`` one seed after another, ``parallel`` the loop's seeds spread over ``workers`` Python threads
(CPU; each thread runs its seeds' kernels with one intra-op thread, so the cores work on different seeds instead
of splitting each kernel), ``vmap`` the single-seed autograd loss under ``torch.func.vmap``.
``auto`` picks ``batched`` for small steps (per-call overhead dominates; batching divides it by S) and otherwise
times ``batched`` against ``loop`` (and, on a CPU with several intra-op threads, ``parallel``) on a few chunks
(:func:`plan_step`), keeping the faster. Measured on the 2-core
CPU (docs/benchmarks.md): batched wins at the quick sizes, the per-seed loop wins at p = 71, m = 500 (the seed
dimension multiplies the working set out of cache), and ``vmap`` never wins, so ``auto`` does not consider it.
``batched``, ``loop`` and ``parallel`` give bit-identical weights on the CPU at one intra-op thread (the test
suite checks float64 agreement; with several threads the kernels' reductions may split differently: round-off).

Full-grid kernel (``kernel``; :func:`_grid_gradient`). When a step's batch is every pair (a, b) of a k = 2
task (full-batch modular addition) and the degree is 2, the logits expand as
:math:`(u_a + v_b)^2 = u_a^2 + 2 u_a v_b + v_b^2`: two small products plus one cross term, and the gradient is
three products of the same 6 n m C flop as above with no gather, no scatter and no (points x width) array; the
grid is walked in blocks of rows whose (m x rows x C) buffers stay in cache (CPU: one seed per call), or all seeds
over the whole grid in one block (CUDA, ``batched``). ``auto`` probes it against the general kernel. Measured at
p = 71, m = 500, 8 seeds, float32: 96 against 105 ms per step on one CPU thread; on an H200 0.91 against 1.24 ms
(general kernel, one-hot product scatter) per step of the data gradient (benchmarks/bench_train_step.py,
docs/benchmarks.md).

``torch.compile`` of the chunk gradient (``compile=True``; ``None`` = automatic) fuses the gather, the power and
the element-wise passes. Measured on the 2-core CPU at p = 71, m = 500 (benchmarks/bench_train_step.py): 2 %
faster in float32 and 6 % in float64 than the eager step, for 6-80 s of compilation; on an H200 (float32, 8 seeds
batched) 1.68x faster (0.84 against 1.41 ms per step) for 9 s of compilation. The automatic choice therefore
compiles runs estimated to take longer than ``COMPILE_MIN_RUN_S`` on either device and keeps the compiled step only
when its probe is faster than the eager one. A failed compilation (out of device memory included) or a compiled
gradient that disagrees with the eager one falls back to the eager step with a warning.

One-hot product scatter (``kernel='matmul'``). On CUDA, ``index_add_`` of (points x width) rows into the k d rows
of the embedding table serialises on atomic additions: at thesis scale (Shi k = 4, p = 47, m = 2944) it made a step
take 3.2 s at 3.8 TFLOP/s on an H200. Written as one product with the chunk's one-hot matrix it takes 1.8 s (1.4 s
with TF32), for 2 c k d m more flop; the CUDA probe times both and keeps the faster (docs/benchmarks.md). Under
``dtype='tf32'`` that product, like the others, rounds its float32 inputs to TF32 (``index_add_`` adds in float32).

Fused Triton kernel (``kernel='triton'``; :mod:`verify.train.polynomial_triton`, issue 33). One Triton kernel per
chunk forms P, its powers, the logits and G tile by tile in registers (no (points x width) tensor in memory) and adds
dW, the table rows and the CE sums atomically, in float32 products. On CUDA, with float32 weights, one-hot inputs and
Triton installed (the optional ``gpu`` extra), the automatic probe times it next to the other kernels, once it has
agreed with :func:`_eager_chunk` on a small chunk of the run's k, degree and C (:func:`_triton_agrees`; a kernel
that fails or disagrees is left out with a warning); it is never a candidate on the CPU. Its correctness is tested against :func:`_eager_chunk` in Triton's interpreter on the CPU;
its speed is not measured yet.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import torch

from verify.runtime.memory import (
    MEMORY_SAFETY,
    OVERRIDE_HINT,
    PRINT_ESTIMATE_S,
    InsufficientMemoryError,
    format_gib,
    format_seconds,
    format_step,
    free_memory,
)
from verify.train.homogeneous import int_power, table_rows, weights_table
from verify.train.polynomial_triton import MAX_CLASSES as TRITON_MAX_CLASSES
from verify.train.polynomial_triton import available as triton_available
from verify.train.polynomial_triton import triton_chunk

__all__ = [
    "KERNELS",
    "STRATEGIES",
    "ChunkSchedule",
    "EnsembleStep",
    "StepPlan",
    "StepRequest",
    "StepShapes",
    "ensemble_gradient",
    "grid_labels",
    "grid_rows",
    "memory_plan",
    "plan_step",
]

STRATEGIES = ("auto", "batched", "loop", "parallel", "vmap")
SCATTERS = ("index", "matmul", "triton")
CPU_CACHE_BYTES = 2 * 2**20  # per thread and (points x width) buffer of a CPU chunk: 1024 points at m = 500, float32
MIN_CHUNK = 256  # CPU chunks never go below this many points (GEMM efficiency; measured best 128-512 at m = 2944)
SMALL_STEP_ELEMENTS = 1 << 18  # S * n * m at or below which `auto` batches without probing
PROBE_REPEATS = 3
PROBE_RELEASE_FRACTION = 0.5  # CUDA probes empty the cache between calls when a plan's peak exceeds this of free
PROBE_CHUNKS = 4  # chunks per probe call (one chunk over-weighted the per-call costs of `parallel` by ~50 %)
PROBE_MIN_STEPS = 20  # shorter runs choose by the cost model alone
COMPILE_MIN_RUN_S = 1800.0  # `compile=None` tries compiling only runs estimated to take longer than this
GRID_BLOCK_BYTES = 3 * 2**20  # per (m x rows x C) buffer of the full-grid kernel on the CPU (measured best 2-4 MiB)
GRID_MIN_ROWS = 4  # the full-grid kernel's products get inefficient below this many rows per block
KERNELS = ("auto", "general", "matmul", "grid", "triton")
#: The evaluation's working set on an accelerator: three (points x width) float64 buffers of one seed's chunk of
#: ``verify.train.polynomial.EVAL_MEMORY_BUDGET`` (64 MiB) live at once, the preactivations and two of their powers
#: (``verify.train.homogeneous.int_power``; up to degree 5, every claim's; four from degree 6); on the CPU its chunks
#: are small and this over-counts.
EVAL_BYTES = 3 * 64 * 2**20


@dataclass(frozen=True)
class StepShapes:
    """Sizes that fix the cost of one training step.

    Parameters
    ----------
    n_seeds, width, n_blocks, block_size, n_classes, degree : int
        S, m, k, d, C and the activation exponent.
    dense : bool
        Dense float inputs (n, k, d) instead of one-hot index inputs (n, k).
    batch_points : int
        Points per update (the whole dataset in full-batch training).
    dataset_points : int
        Points held on the device (the whole dataset).
    itemsize : int
        Bytes per float of the training dtype (8 or 4).
    optimizer_slots : int
        Tensors of parameter size kept by the optimiser (Adam 2, SGD with momentum 1, else 0).
    """

    n_seeds: int
    width: int
    n_blocks: int
    block_size: int
    n_classes: int
    degree: int
    dense: bool
    batch_points: int
    dataset_points: int
    itemsize: int
    optimizer_slots: int = 2

    @property
    def n_params(self) -> int:
        """Parameters of the whole ensemble, S m (k d + C)."""
        return self.n_seeds * self.width * (self.n_blocks * self.block_size + self.n_classes)

    @property
    def flops_per_step(self) -> float:
        """Multiply-adds x 2 of one update: 6 n m C per seed (three products), plus 4 n kd m for dense inputs."""
        n, m = self.batch_points, self.width
        per_seed = 6.0 * n * m * self.n_classes
        if self.dense:
            per_seed += 4.0 * n * self.n_blocks * self.block_size * m
        return per_seed * self.n_seeds

    @property
    def flops_per_evaluation(self) -> float:
        """Multiply-adds x 2 of one evaluation over the whole dataset (:func:`verify.train.polynomial.ensemble_metrics`,
        forward only): 2 N m C per seed (the output product), plus 2 N kd m for dense inputs (index inputs are
        gathered, :func:`verify.train.homogeneous.preactivations`)."""
        n, m = self.dataset_points, self.width
        per_seed = 2.0 * n * m * self.n_classes
        if self.dense:
            per_seed += 2.0 * n * self.n_blocks * self.block_size * m
        return per_seed * self.n_seeds

    def bytes_per_point_seed(self, strategy: str) -> int:
        """Working set of one point of one seed inside a chunk (the buffers P, P^(deg-1), A, F and G)."""
        m, C, b = self.width, self.n_classes, self.itemsize
        if strategy == "vmap":  # autograd keeps P, P^deg, F, log-softmax and their gradients
            return b * (4 * m + 4 * C)
        extra = m if self.degree > 2 else 0
        layout = m if (strategy == "batched" and self.n_seeds > 1) else 0  # (n, S m) copy for the scatter
        return b * (2 * m + extra + layout + 2 * C)

    def bytes_per_point(self) -> int:
        """Per-point int64 indices of a chunk (inputs with offsets, labels, embedding-bag bookkeeping)."""
        return 8 * (2 * self.n_blocks + 4)

    def fixed_bytes(self) -> int:
        """Memory that does not scale with the chunk: data, parameters with gradient, optimiser state and step
        temporaries, and the float64 evaluation (weights copy plus its chunk)."""
        if self.dense:
            data = self.dataset_points * (self.n_blocks * self.block_size * self.itemsize + 8)
        else:
            data = self.dataset_points * 8 * (self.n_blocks + 1)
        params = self.n_params * self.itemsize * (4 + self.optimizer_slots)  # weights, grad, 2 step temporaries
        return data + params + self.n_params * 8 + EVAL_BYTES


@dataclass(frozen=True)
class StepPlan:
    """How :func:`verify.train.polynomial.train` executes its steps, and what it expects them to cost.

    Attributes
    ----------
    strategy : {'batched', 'loop', 'parallel', 'vmap'}
    group : int
        Seeds per kernel launch (S for batched and vmap, 1 for loop and parallel).
    chunk : int
        Points per gradient chunk (gradients are accumulated over ceil(n / chunk) chunks).
    compiled : bool
        Whether the chunk gradient runs through ``torch.compile``.
    device : str
    dtype : str
    flops_per_step : float
    peak_bytes : int
        Estimated peak memory of the run on the device (data, weights, optimiser, one chunk, evaluation).
    free_bytes : int or None
        Free memory of the device when the plan was made (None: unknown).
    seconds_per_step : float or None
        From a short probe (None when the step was too small to probe).
    reason : str
        Why this strategy and chunk were chosen.
    workers : int
        Threads that run seeds concurrently (``parallel``; 1 otherwise).
    kernel : {'general', 'matmul', 'grid', 'triton'}
        ``grid``: the full-grid kernel of :func:`_grid_gradient` (k = 2, degree 2, the whole grid of inputs per
        step; ``chunk`` is then the points of one block of rows); ``matmul``: the general chunked gradient with the
        one-hot product scatter (:func:`_eager_chunk`); ``triton``: the fused Triton chunk kernel
        (:func:`verify.train.polynomial_triton.triton_chunk`; CUDA, float32, one-hot inputs); else the general
        chunked gradient.
    """

    strategy: str
    group: int
    chunk: int
    compiled: bool
    device: str
    dtype: str
    flops_per_step: float
    peak_bytes: int
    free_bytes: int | None
    seconds_per_step: float | None
    reason: str
    workers: int = 1
    kernel: str = "general"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible dict."""
        return asdict(self)

    def describe(self, steps: int | None = None) -> str:
        """One paragraph for the log: strategy, chunks, memory against free memory, time per step and in all."""
        free = "unknown free" if self.free_bytes is None else f"{format_gib(self.free_bytes)} free"
        text = (
            f"training plan on {self.device} ({self.dtype}): strategy {self.strategy} ({self.group} seed(s) per "
            f"launch{f', {self.workers} threads' if self.workers > 1 else ''}{', compiled' if self.compiled else ''}"
            f"{', full-grid kernel' if self.kernel == 'grid' else ''}"
            f"{', one-hot product scatter' if self.kernel == 'matmul' else ''}"
            f"{', fused Triton kernel' if self.kernel == 'triton' else ''}"
            f"), chunks of {self.chunk} points; estimated peak memory "
            f"{format_gib(self.peak_bytes)} ({free}); {self.flops_per_step / 1e9:.3g} GFLOP per step"
        )
        if self.seconds_per_step is not None:
            rate = self.flops_per_step / max(self.seconds_per_step, 1e-12) / 1e9
            text += f", about {format_step(self.seconds_per_step)} per step ({rate:.3g} GFLOP/s)"
            if steps:
                text += f", {steps} steps in about {format_seconds(steps * self.seconds_per_step)}"
        return f"{text}. [{self.reason}]"


def memory_plan(
    shapes: StepShapes,
    strategy: str,
    device_type: str,
    free_bytes: int | None,
    chunk_size: int | None = None,
    ignore_memory_check: bool = False,
    present_bytes: int = 0,
    threads: int = 1,
    extra_per_point: int = 0,
) -> tuple[int, int]:
    """Chunk size and estimated peak bytes of a run.

    The chunk is ``chunk_size`` if given, else the whole batch capped by the cache budget (CPU: ``CPU_CACHE_BYTES``
    per thread and (points x width) buffer, at least ``MIN_CHUNK`` points, for ``threads`` intra-op threads) and by
    the free memory (rounded down to a power of two when it binds). Peak = fixed bytes + chunk x (group x per-point-seed
    bytes + per-point bytes + ``extra_per_point``) (:class:`StepShapes`); the usable memory is ``MEMORY_SAFETY`` x ``free_bytes`` plus
    ``present_bytes``, what the run has already allocated (data and weights) and the peak counts again.

    Raises
    ------
    InsufficientMemoryError
        When the peak exceeds the usable memory (unless ``ignore_memory_check``): the message gives the numbers,
        the largest chunk that fits and the override.
    """
    group = _group_of(strategy, shapes.n_seeds)
    concurrent = _workers_of(strategy, shapes.n_seeds, threads)  # chunks in flight at once (parallel: one per thread)
    per_point = concurrent * (
        group * shapes.bytes_per_point_seed(strategy) + shapes.bytes_per_point() + extra_per_point
    )
    n = shapes.batch_points
    if chunk_size is not None:
        chunk = min(int(chunk_size), n)
    else:
        chunk = n
        if device_type == "cpu":
            per_chunk_threads = 1 if concurrent > 1 else max(1, threads)
            cache = per_chunk_threads * CPU_CACHE_BYTES // (shapes.width * shapes.itemsize)
            chunk = min(n, max(MIN_CHUNK, _pow2_floor(cache)))

    def refusal(chunk: int, peak: int, fitting: int) -> InsufficientMemoryError:
        return _chunk_refusal(
            f"training would need about {format_gib(peak)} on {device_type} ({chunk} points x {group} seed(s) per chunk, "
            f"{shapes.n_seeds} seeds, width {shapes.width})",
            free_bytes,
            f"chunk_size <= {fitting} points would fit"
            if fitting >= 1
            else "no chunk size fits (data, weights and optimiser state alone exceed it)",
            "Lower chunk_size (or leave it None to size chunks automatically)",
        )

    fit = _UnitsFit(shapes.fixed_bytes(), per_point, free_bytes, present_bytes)
    return fit.size(chunk, chunk_size is not None, _pow2_floor, refusal, ignore_memory_check)


@dataclass(frozen=True)
class _UnitsFit:
    """A plan's memory: ``fixed`` bytes plus ``per_unit`` bytes for each unit (a point of a chunk, a row of a
    block), against the device's ``free`` bytes (None: unknown) and what the run already holds (``present`` bytes,
    data and weights, that the plan's peak counts again)."""

    fixed: int
    per_unit: int
    free: int | None
    present: int

    def fitting(self) -> int | None:
        """How many units the usable memory holds at once: ``(MEMORY_SAFETY * free + present - fixed) // per_unit``
        (below 1 when not even one fits); None when the free memory is unknown."""
        if self.free is None:
            return None
        return int((MEMORY_SAFETY * self.free + self.present - self.fixed) // self.per_unit)

    def size(
        self,
        units: int,
        given: bool,
        shrink: Callable[[int], int],
        refusal: Callable[[int, int, int], InsufficientMemoryError],
        ignore: bool,
    ) -> tuple[int, int]:
        """(units, peak bytes ``fixed + units * per_unit``) of a plan of ``units`` units: a size chosen by the
        planner (``given`` False) shrinks to ``shrink(fitting)`` when the memory binds; a given size is kept.

        Raises
        ------
        InsufficientMemoryError
            ``refusal(units, peak, fitting)`` when the units exceed what fits (a given size, or not even one unit),
            unless ``ignore``.
        """
        fitting = self.fitting()
        if not given and fitting is not None and 1 <= fitting < units:
            units = shrink(fitting)
        peak = self.fixed + units * self.per_unit
        if fitting is not None and fitting < units and not ignore:
            raise refusal(units, peak, fitting)
        return units, peak


def _chunk_refusal(need: str, free: int | None, largest: str, lower: str) -> InsufficientMemoryError:
    """The refusal of a chunk plan that does not fit: what needs how much for which sizes (``need``), what is
    usable, the largest chunk that fits, and the remedies (``lower``, fewer seeds, the override)."""
    return InsufficientMemoryError(
        f"{need} but {MEMORY_SAFETY:.0%} of the {format_gib(free or 0)} free is usable: {largest}. {lower}, train fewer seeds per "
        f"run, {OVERRIDE_HINT}."
    )


def _group_of(strategy: str, n_seeds: int) -> int:
    """Seeds per kernel launch: 1 for ``loop`` and ``parallel``, all for ``batched`` and ``vmap``."""
    return 1 if strategy in ("loop", "parallel") else n_seeds


def _workers_of(strategy: str, n_seeds: int, threads: int) -> int:
    """Threads running seeds at once: ``min(threads, S)`` for ``parallel``, else 1."""
    return max(1, min(int(threads), n_seeds)) if strategy == "parallel" else 1


def _pow2_floor(x: int) -> int:
    return 1 << (max(int(x), 1).bit_length() - 1)


# ---------------------------------------------------------------------------------------------------- gradients


def _chunk_inputs(x: torch.Tensor, start: int, stop: int, block_size: int, dense: bool) -> torch.Tensor:
    """Rows start:stop as one-hot row indices into the (k d)-row table, or as dense (c, k d) floats."""
    xc = x[start:stop]
    if dense:
        return xc.reshape(xc.shape[0], -1)
    return table_rows(xc, block_size)


def _eager_chunk(
    table: torch.Tensor,
    W: torch.Tensor,
    degree: int,
    xc: torch.Tensor,
    yc: torch.Tensor,
    dense: bool,
    dtab: torch.Tensor,
    dW: torch.Tensor,
    ce: torch.Tensor,
    scatter: str = "index",
) -> None:
    """Accumulate one chunk's unscaled gradients (module doc) into ``dtab``, ``dW`` and the CE sum into ``ce``.

    ``table`` is the (k d, g m) embedding table (one-hot inputs) or U as (g, m, k d) (dense); ``dtab`` has the
    same layout. ``dW`` (g, m, C) receives A^T G and ``dtab`` the gather's transpose of P^(deg-1) (G W^T):
    ``scatter='index'`` adds the rows with ``index_add_`` (one per block), ``'matmul'`` as one product
    O^T (P^(deg-1) (G W^T)) with the chunk's (c, k d) one-hot matrix O (2 c k d g m more flop, no atomics:
    on CUDA ``index_add_`` into k d rows serialises on atomic additions; docs/benchmarks.md).
    """
    g, m, _ = W.shape
    c = xc.shape[0]
    if dense:
        P = torch.matmul(xc, table.transpose(1, 2))  # (g, c, m)
    else:
        P = torch.nn.functional.embedding_bag(xc, table, mode="sum").view(c, g, m).transpose(0, 1)
    if degree == 1:
        Q, A = None, P.contiguous()
    else:
        Q = int_power(P, degree - 1)
        A = torch.empty((g, c, m), dtype=P.dtype, device=P.device)
        torch.mul(Q, P, out=A)
    logp = torch.log_softmax(torch.bmm(A, W), dim=2)
    idx = yc.view(1, c, 1).expand(g, c, 1)
    ce -= logp.gather(2, idx).sum(dim=(1, 2))
    G = logp.exp_()
    G.scatter_add_(2, idx, torch.full((1, 1, 1), -1.0, dtype=G.dtype, device=G.device).expand(g, c, 1))
    dW.baddbmm_(A.transpose(1, 2), G)
    dP = torch.bmm(G, W.transpose(1, 2), out=A) if A is not P else torch.bmm(G, W.transpose(1, 2))
    if Q is not None:
        dP.mul_(Q)
    if dense:
        dtab.add_(torch.matmul(dP.transpose(1, 2), xc))
        return
    src = dP.view(c, m) if g == 1 else dP.transpose(0, 1).reshape(c, g * m)
    if scatter == "matmul":
        dtab.addmm_(_one_hot_rows(xc, table.shape[0], src).T, src)
        return
    for j in range(xc.shape[1]):
        dtab.index_add_(0, xc[:, j], src)


def _one_hot_rows(xc: torch.Tensor, rows: int, like: torch.Tensor) -> torch.Tensor:
    """The chunk's (c, ``rows``) one-hot input matrix in ``like``'s dtype and device: a 1 at each of a point's k
    table rows (the blocks' offsets make the k ones of a row distinct)."""
    return torch.zeros((xc.shape[0], rows), dtype=like.dtype, device=like.device).scatter_(1, xc, 1.0)


def _scatter_of(kernel: str) -> str:
    """The ``scatter`` of :func:`ensemble_gradient` a plan's kernel runs with."""
    return kernel if kernel in ("matmul", "triton") else "index"


def _functional_chunk(
    table: torch.Tensor,
    W: torch.Tensor,
    xc: torch.Tensor,
    yc: torch.Tensor,
    degree: int,
    dense: bool,
    scatter: str = "index",
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`_eager_chunk` without in-place updates (what ``torch.compile`` traces): returns (ce, dtab, dW)."""
    g, m, C = W.shape
    c = xc.shape[0]
    if dense:
        P = torch.matmul(xc, table.transpose(1, 2))
    else:
        flat = table[xc[:, 0]]
        for j in range(1, xc.shape[1]):
            flat = flat + table[xc[:, j]]
        P = flat.view(c, g, m).transpose(0, 1)
    Q = torch.ones_like(P) if degree == 1 else int_power(P, degree - 1)
    A = Q * P
    logp = torch.log_softmax(torch.bmm(A, W), dim=2)
    ce = -logp.gather(2, yc.view(1, c, 1).expand(g, c, 1)).sum(dim=(1, 2))
    G = logp.exp() - torch.nn.functional.one_hot(yc, C).to(logp.dtype)
    dW = torch.bmm(A.transpose(1, 2), G)
    dP = torch.bmm(G, W.transpose(1, 2)) * Q
    if dense:
        return ce, torch.matmul(dP.transpose(1, 2), xc), dW
    src = dP.transpose(0, 1).reshape(c, g * m)
    if scatter == "matmul":
        return ce, _one_hot_rows(xc, table.shape[0], src).T @ src, dW
    dtab = torch.zeros_like(table, memory_format=torch.contiguous_format)
    for j in range(xc.shape[1]):
        dtab = dtab.index_add(0, xc[:, j], src)
    return ce, dtab, dW


def _vmap_gradient_fn(degree: int, dense: bool) -> Callable[..., Any]:
    """``vmap`` over seeds of the single-seed autograd gradient of the CE sum of one chunk."""

    def loss(U1: torch.Tensor, W1: torch.Tensor, xc: torch.Tensor, yc: torch.Tensor) -> torch.Tensor:
        m, k, d = U1.shape
        if dense:
            P = xc @ U1.reshape(m, k * d).T
        else:
            P = torch.nn.functional.embedding(xc, U1.permute(1, 2, 0).reshape(k * d, m)).sum(dim=1)
        return torch.nn.functional.cross_entropy(P.pow(degree) @ W1, yc, reduction="sum")

    return torch.func.vmap(torch.func.grad_and_value(loss, argnums=(0, 1)), in_dims=(0, 0, None, None))


def grid_labels(x: torch.Tensor, y: torch.Tensor, block_size: int) -> torch.Tensor | None:
    """The (d, d) label table ``t[a, b]`` when the one-hot index inputs ``x`` (n, 2) list every pair (a, b) of
    {0..d-1}^2 exactly once (in any order), else None: the inputs :func:`_grid_gradient` needs."""
    d = int(block_size)
    if x.dtype.is_floating_point or x.ndim != 2 or x.shape[1] != 2 or x.shape[0] != d * d or d < 1:
        return None
    key = x[:, 0] * d + x[:, 1]
    if int(key.min()) < 0 or int(key.max()) >= d * d:
        return None
    if not bool((torch.bincount(key, minlength=d * d) == 1).all()):
        return None
    table = torch.empty(d * d, dtype=torch.int64, device=x.device)
    table[key] = y.to(torch.int64)
    return table.view(d, d)


def grid_rows(width: int, n_classes: int, itemsize: int, block_size: int, device_type: str) -> int:
    """Rows b of the grid per block of :func:`_grid_gradient`: on the CPU as many as keep one (m, rows, C)
    buffer within ``GRID_BLOCK_BYTES`` (at least ``GRID_MIN_ROWS``), elsewhere the whole grid."""
    if device_type != "cpu":
        return int(block_size)
    rows = GRID_BLOCK_BYTES // max(1, width * n_classes * itemsize)
    return int(min(block_size, max(GRID_MIN_ROWS, rows)))


def _grid_gradient(
    U: torch.Tensor, W: torch.Tensor, labels: torch.Tensor, rows: int, dU: torch.Tensor, dW: torch.Tensor
) -> torch.Tensor:
    r"""Unscaled CE sums and their gradients for g seeds at once, k = 2 blocks, degree 2, on the full grid (module
    doc).

    For one seed, with :math:`u_a = U_{:,0,a}`, :math:`v_b = U_{:,1,b}` the logits of the input (a, b) are
    :math:`F_{abc} = \sum_j W_{jc}(u_{ja}+v_{jb})^2 = A_{ac} + B_{bc} + 2\sum_j u_{ja} v_{jb} W_{jc}` with
    :math:`A = (u\odot u)^\top W`, :math:`B = (v\odot v)^\top W`. With :math:`G = \mathrm{softmax}(F) - e_y`,
    :math:`G^a = \sum_b G`, :math:`G^b = \sum_a G`:

    .. math:: \partial_{u_{ja}} = 2u_{ja}(W G^{a\top})_{ja} + 2\sum_{bc} G_{abc} v_{jb} W_{jc},\quad
              \partial_{v_{jb}} = 2v_{jb}(W G^{b\top})_{jb} + 2\sum_c W_{jc} Z_{jbc},\quad
              \partial_{W_{jc}} = (u\odot u\, G^a + v\odot v\, G^b)_{jc} + 2\sum_b v_{jb} Z_{jbc},

    :math:`Z_{jbc} = \sum_a u_{ja} G_{abc}`. Three products of 2 d^2 m C flop each (the logits' cross term, the
    first sum as :math:`G (v\otimes W)^\top`, and Z), as in the general step, but no gather, no scatter and no
    (points x width) array: the grid is walked in blocks of ``rows`` values of b, so that the block's
    :math:`v\otimes W` and Z, (g, m, rows, C) each, stay in cache while they are written and read back (on the
    CPU one seed per call; on CUDA all seeds and the whole grid in one block: 1.4x the general batched step on an
    H200, docs/benchmarks.md). ``U`` is (g, m, 2, d), ``W`` (g, m, C), ``labels`` the (d, d) table of
    :func:`grid_labels`. Writes dU (g, m, 2, d) and dW (g, m, C); returns the CE sums (g,).
    """
    g, m, _, d = U.shape
    C = W.shape[2]
    kw = dict(dtype=U.dtype, device=U.device)
    u, v = U[:, :, 0], U[:, :, 1]  # (g, m, d) views
    v2, W2 = v * 2.0, W * 2.0
    uu, vv = u * u, v * v
    Au, Bv = torch.bmm(uu.transpose(1, 2), W), torch.bmm(vv.transpose(1, 2), W)  # (g, d, C)
    r = min(rows, d)
    buf = torch.empty(2, g * m * r * C, **kw)
    Cu = torch.zeros(g, d, m, **kw)
    Cv = torch.empty(g, m, d, **kw)
    Cw = torch.zeros(g * m, 1, C, **kw)
    Ga = torch.zeros(g, d, C, **kw)
    Gb = torch.empty(g, d, C, **kw)
    ce = torch.zeros(g, **kw)
    minus_one = torch.full((1, 1, 1), -1.0, **kw)
    uT = u.transpose(1, 2)
    for b0 in range(0, d, rows):
        w = min(rows, d - b0)
        b1 = b0 + w
        KR = buf[0, : g * m * w * C].view(g, m, w, C)
        torch.mul(v2[:, :, b0:b1, None], W[:, :, None, :], out=KR)  # 2 v_jb W_jc
        bias = (Au[:, :, None, :] + Bv[:, None, b0:b1, :]).view(g, d, w * C)
        F = torch.baddbmm(bias, uT, KR.view(g, m, w * C))  # (g, d, w C): logits of the points (a, b0..b1-1)
        logp = torch.log_softmax(F.view(g, d * w, C), dim=2)
        yb = labels[:, b0:b1].reshape(1, d * w, 1).expand(g, d * w, 1)
        ce -= logp.gather(2, yb).sum(dim=(1, 2))
        G = logp.exp_()
        G.scatter_add_(2, yb, minus_one.expand(g, d * w, 1))
        G4 = G.view(g, d, w, C)
        Ga += G4.sum(dim=2)
        Gb[:, b0:b1] = G4.sum(dim=1)
        Cu.baddbmm_(G.view(g, d, w * C), KR.view(g, m, w * C).transpose(1, 2))  # 2 sum_bc G_abc v_jb W_jc
        Z = buf[1, : g * m * w * C].view(g, m, w * C)
        torch.bmm(u, G.view(g, d, w * C), out=Z)
        Z3 = Z.view(g * m, w, C)
        Cv[:, :, b0:b1] = torch.bmm(W2.view(g * m, 1, C), Z3.transpose(1, 2)).view(g, m, w)
        Cw.baddbmm_(v2[:, :, b0:b1].reshape(g * m, 1, w), Z3)
    torch.baddbmm(Cw.view(g, m, C), uu, Ga, out=dW)
    dW.baddbmm_(vv, Gb)
    dU[:, :, 0] = torch.addcmul(Cu.transpose(1, 2), u, torch.bmm(W2, Ga.transpose(1, 2)))
    dU[:, :, 1] = torch.addcmul(Cv, v, torch.bmm(W2, Gb.transpose(1, 2)))
    return ce


@dataclass(frozen=True)
class ChunkSchedule:
    """How :func:`ensemble_gradient` goes through the seeds and the points.

    Parameters
    ----------
    group : int
        Seeds per call ('batched', 'loop', 'parallel').
    chunk : int
        Points per chunk.
    strategy : {'batched', 'loop', 'parallel', 'vmap'}
        'vmap' runs all seeds at once under ``torch.vmap``; 'parallel' shares the groups among ``workers`` threads.
    workers : int
        Threads of 'parallel' (each with one intra-op thread).
    scatter : {'index', 'matmul', 'triton'}
        How one-hot chunks add their gradient into U (:func:`_eager_chunk`); 'triton' runs each chunk through the
        fused kernel :func:`verify.train.polynomial_triton.triton_chunk` instead (one-hot float32 inputs).
    """

    group: int
    chunk: int
    strategy: str = "batched"
    workers: int = 1
    scatter: str = "index"

    def __post_init__(self) -> None:
        if self.scatter not in SCATTERS:
            raise ValueError(f"scatter must be one of {SCATTERS}, got {self.scatter!r}")


def ensemble_gradient(
    U: torch.Tensor,
    W: torch.Tensor,
    degree: int,
    x: torch.Tensor,
    y: torch.Tensor,
    schedule: ChunkSchedule,
    *,
    compiled: Callable[..., Any] | None = None,
    labels: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-seed mean cross-entropy over (x, y) and its gradients with respect to U (S, m, k, d) and W (S, m, C).

    Seeds go through in groups of ``schedule.group`` (strategy 'batched'/'loop'/'parallel') or all at once under
    'vmap'; points in chunks of ``schedule.chunk``. With 'parallel' the groups are shared among ``schedule.workers``
    threads, each with one intra-op thread (the groups write disjoint slices of the outputs). ``compiled`` is a
    compiled :func:`_functional_chunk` for full chunks of exactly ``chunk`` points (a shorter last chunk runs
    eagerly). With ``labels``, the (d, d) table of :func:`grid_labels` for (x, y) (k = 2, ``degree`` 2), the seeds run
    :func:`_grid_gradient` instead, in blocks of ``chunk // d`` rows ('batched' runs all seeds in one call,
    'parallel' spreads them over the workers, any other strategy runs them one after another). Returns
    (ce (S,), dU, dW), detached.
    """
    group, chunk, strategy, workers, scatter = (
        schedule.group,
        schedule.chunk,
        schedule.strategy,
        schedule.workers,
        schedule.scatter,
    )
    U, W = U.detach(), W.detach()
    S, m, k, d = U.shape
    n = x.shape[0]
    dense = x.dtype.is_floating_point
    if dense:
        x = x.to(U.dtype)
    dU = torch.empty_like(U)
    dW = torch.empty_like(W)
    ce = torch.zeros(S, dtype=U.dtype, device=U.device)
    scale = 1.0 / n
    if labels is not None:
        if degree != 2 or k != 2 or dense:
            raise ValueError(
                f"the full-grid kernel needs k = 2 one-hot blocks and degree 2, got k = {k}, degree {degree}"
            )
        rows = max(1, chunk // d)

        def run_seed(s: int) -> None:
            ce[s : s + 1] = _grid_gradient(U[s : s + 1], W[s : s + 1], labels, rows, dU[s : s + 1], dW[s : s + 1])

        if strategy == "batched":
            ce.copy_(_grid_gradient(U, W, labels, rows, dU, dW))
        elif strategy == "parallel" and workers > 1 and S > 1:
            _in_threads(run_seed, range(S), workers)
        else:
            for s in range(S):
                run_seed(s)
        return ce.mul_(scale), dU.mul_(scale), dW.mul_(scale)
    if strategy == "vmap":
        fn = _vmap_gradient_fn(degree, dense)
        dU.zero_()
        dW.zero_()
        for start in range(0, n, chunk):
            (gU, gW), val = fn(U, W, _chunk_inputs(x, start, start + chunk, d, dense), y[start : start + chunk])
            dU += gU
            dW += gW
            ce += val
        return ce * scale, dU.mul_(scale), dW.mul_(scale)

    def run_group(s0: int) -> None:
        Ug, Wg = U[s0 : s0 + group], W[s0 : s0 + group]
        g = Ug.shape[0]
        table = weights_table(Ug, dense)
        dtab = torch.zeros_like(table, memory_format=torch.contiguous_format)
        dWg = dW[s0 : s0 + g].zero_()
        ceg = ce[s0 : s0 + g]
        for start in range(0, n, chunk):
            xc = _chunk_inputs(x, start, start + chunk, d, dense)
            yc = y[start : start + chunk]
            if compiled is not None and xc.shape[0] == chunk:
                c_ce, c_tab, c_dW = compiled(table, Wg, xc, yc)
                ceg += c_ce
                dtab += c_tab
                dWg += c_dW
            elif scatter == "triton" and not dense:
                triton_chunk(table, Wg, degree, xc, yc, dtab, dWg, ceg)
            else:
                _eager_chunk(table, Wg, degree, xc, yc, dense, dtab, dWg, ceg, scatter)
        dWg.mul_(scale)
        if dense:
            dU[s0 : s0 + g] = dtab.view(g, m, k, d) * (degree * scale)
        else:
            dU[s0 : s0 + g] = dtab.view(k, d, g, m).permute(2, 3, 0, 1) * (degree * scale)

    starts = range(0, S, group)
    if strategy == "parallel" and workers > 1 and len(starts) > 1:
        _in_threads(run_group, starts, workers)
    else:
        for s0 in starts:
            run_group(s0)
    return ce.mul_(scale), dU, dW


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(workers: int) -> ThreadPoolExecutor:
    """A thread pool of ``workers`` threads kept for the process (new threads per step would pay torch's per-thread
    start-up at every step; the probe measured that as ~40 % of a step at p = 71, m = 500)."""
    if workers not in _POOLS:
        _POOLS[workers] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tvk-seeds")
    return _POOLS[workers]


def _in_threads(fn: Callable[[int], None], items: range, workers: int) -> None:
    """``fn`` on every item, shared among ``workers`` threads that each use one intra-op thread (the caller's
    intra-op thread count is restored afterwards). torch kernels release the GIL, so the threads run on separate
    cores; an exception in any thread is raised here (after every item has finished)."""
    before = torch.get_num_threads()

    def one(item: int) -> None:
        torch.set_num_threads(1)  # per thread: OpenMP's thread count is a per-thread setting
        fn(item)

    try:
        futures = [_pool(workers).submit(one, i) for i in items]
        errors = [f.exception() for f in futures]
        for exc in errors:
            if exc is not None:
                raise exc
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------------------------------------------- plan


class EnsembleStep:
    """The data gradient of a :class:`verify.train.homogeneous.HomogeneousEnsemble` under a :class:`StepPlan`.

    ``step(U, W, x, y)`` writes the gradients of the per-seed mean cross-entropy into ``U.grad`` and ``W.grad``
    (set, not accumulated) and returns the per-seed cross-entropy (S,).
    """

    def __init__(self, plan: StepPlan, degree: int, compiled: Callable[..., Any] | None = None) -> None:
        self.plan, self.degree, self.compiled = plan, int(degree), compiled
        self._grid: tuple[tuple[Any, ...], torch.Tensor | None] | None = None

    def labels(self, x: torch.Tensor, y: torch.Tensor, block_size: int) -> torch.Tensor | None:
        """:func:`grid_labels` of (x, y) under the ``grid`` kernel (None otherwise, or when (x, y) is not the full
        grid: that batch then takes the general kernel), cached while the same unchanged tensors come back."""
        if self.plan.kernel != "grid":
            return None
        key = (x.data_ptr(), y.data_ptr(), tuple(x.shape), tuple(y.shape), x._version, y._version, block_size)
        if self._grid is None or self._grid[0] != key:
            self._grid = (key, grid_labels(x, y, block_size))
        return self._grid[1]

    def gradient(
        self, U: torch.Tensor, W: torch.Tensor, x: torch.Tensor, y: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(ce, dU, dW) without touching ``.grad``."""
        p = self.plan
        labels = self.labels(x, y, U.shape[3]) if self.degree == 2 and U.shape[2] == 2 else None
        return ensemble_gradient(
            U,
            W,
            self.degree,
            x,
            y,
            ChunkSchedule(p.group, p.chunk, p.strategy, p.workers, _scatter_of(p.kernel)),
            compiled=self.compiled,
            labels=labels,
        )

    def __call__(self, U: torch.Tensor, W: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        ce, dU, dW = self.gradient(U, W, x, y)
        U.grad, W.grad = dU, dW
        return ce


def synchronize(device: torch.device) -> None:
    """Wait for ``device``'s queued kernels (CUDA; nothing elsewhere), before a clock is read."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _compile_chunk(
    degree: int,
    dense: bool,
    table: torch.Tensor,
    W: torch.Tensor,
    xc: torch.Tensor,
    yc: torch.Tensor,
    scatter: str = "index",
) -> Callable[..., Any] | None:
    """``torch.compile`` of :func:`_functional_chunk` for these shapes, checked against the in-place eager gradient
    (:func:`_eager_chunk`, the memory the plan counts) on (xc, yc); None (with a warning) when compilation or the
    check fails (out of device memory included) or the results disagree beyond round-off."""

    def fn(table: torch.Tensor, W: torch.Tensor, xc: torch.Tensor, yc: torch.Tensor) -> Any:
        return _functional_chunk(table, W, xc, yc, degree, dense, scatter)

    try:
        compiled = torch.compile(fn, dynamic=False)
        got = compiled(table, W, xc, yc)
        want = (
            torch.zeros(W.shape[0], dtype=W.dtype, device=W.device),
            torch.zeros_like(table, memory_format=torch.contiguous_format),
            torch.zeros_like(W),
        )
        _eager_chunk(table, W, degree, xc, yc, dense, want[1], want[2], want[0], scatter)
    except Exception as exc:  # no compiler, unsupported op, out of memory...: the eager step is always available
        _release_cache(W.device)
        warnings.warn(
            f"torch.compile of the training step failed ({type(exc).__name__}: {exc}); running eagerly", stacklevel=3
        )
        return None
    rtol = 1e-4 if W.dtype == torch.float32 else 1e-10
    for a, b in zip(got, want):
        if not torch.allclose(a, b, rtol=rtol, atol=rtol * float(b.abs().max())):
            warnings.warn("the compiled training step disagrees with the eager one; running eagerly", stacklevel=3)
            return None
    return compiled


_TRITON_CHECKED: dict[tuple[str, int, int, int], bool] = {}
TRITON_CHECK_RTOL = 1e-5  # x the largest entry: the float32 tolerance of tests/verify/test_polynomial_triton.py


def _triton_agrees(device: torch.device, n_blocks: int, degree: int, n_classes: int) -> bool:
    """Whether the fused Triton kernel runs on ``device`` and agrees with :func:`_eager_chunk` (within
    ``TRITON_CHECK_RTOL`` of the largest entry) on a small random float32 chunk of this request's k, degree and C
    (the kernel's compile-time constants), cached per process; a failure warns and keeps the planner on the eager
    kernels.

    Parameters
    ----------
    device : torch.device
    n_blocks, degree, n_classes : int
        k, the activation exponent and C.

    Returns
    -------
    bool
    """
    key = (str(device), n_blocks, degree, n_classes)
    if key not in _TRITON_CHECKED:
        gen = torch.Generator().manual_seed(0)
        g, m, d, c = 2, 48, 7, 100
        table = (torch.randn(n_blocks * d, g * m, generator=gen) / d**0.5).to(device)
        W = (torch.randn(g, m, n_classes, generator=gen) / m**0.5).to(device)
        xc = _chunk_inputs(torch.randint(0, d, (c, n_blocks), generator=gen).to(device), 0, c, d, False)
        yc = torch.randint(0, n_classes, (c,), generator=gen).to(device)
        outs = []
        for fused in (False, True):
            ce, dtab, dW = torch.zeros(g, device=device), torch.zeros_like(table), torch.zeros_like(W)
            try:
                if fused:
                    triton_chunk(table, W, degree, xc, yc, dtab, dW, ce)
                else:
                    _eager_chunk(table, W, degree, xc, yc, False, dtab, dW, ce)
            except Exception as exc:  # no driver, a compilation error...: the eager kernels are always available
                warnings.warn(f"the fused Triton kernel failed ({type(exc).__name__}: {exc}); not used", stacklevel=3)
                _TRITON_CHECKED[key] = False
                return False
            outs.append((ce, dtab, dW))
        ok = all(
            float((a - b).abs().max()) <= TRITON_CHECK_RTOL * float(b.abs().max()) for a, b in zip(outs[1], outs[0])
        )
        if not ok:
            warnings.warn("the fused Triton kernel disagrees with the eager chunk; not used", stacklevel=3)
        _TRITON_CHECKED[key] = ok
    return _TRITON_CHECKED[key]


@dataclass(frozen=True)
class StepRequest:
    """What :func:`plan_step` plans for, besides the tensors.

    Parameters
    ----------
    dataset_points : int
        Points of the whole dataset (the evaluation's working set).
    optimizer_slots : int
        Optimiser tensors per parameter (2 for Adam, 1 for SGD with momentum, 0 for plain SGD).
    steps : int
        Updates the run will make (short runs are not worth a probe or a compilation).
    strategy : {'auto', 'batched', 'loop', 'parallel', 'vmap'}
        How the seeds go through the step; 'auto' decides.
    chunk_size : int or None
        Points per chunk (None: sized to the cache or the free memory).
    compile : bool or None
        ``torch.compile`` the chunk gradient (None: only long runs, kept when faster).
    ignore_memory_check : bool
        Plan even when the estimated peak exceeds the free memory.
    print_estimate : bool
        Print the plan of a run estimated above ``PRINT_ESTIMATE_S``.
    probe : bool
        Time candidate strategies on one chunk (False: the cost model alone; the time stays unknown).
    free_bytes : int or None
        Plan for a device with this much free memory instead of the one at hand.
    dry_run : bool
        Only plan: nothing is compiled or printed.
    kernel : {'auto', 'general', 'matmul', 'grid', 'triton'}
        The gradient kernel (see :func:`plan_step`).
    """

    dataset_points: int
    optimizer_slots: int
    steps: int
    strategy: str = "auto"
    chunk_size: int | None = None
    compile: bool | None = None
    ignore_memory_check: bool = False
    print_estimate: bool = True
    probe: bool = True
    free_bytes: int | None = None
    dry_run: bool = False
    kernel: str = "auto"

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {self.strategy!r}")
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}")


def plan_step(
    U: torch.Tensor, W: torch.Tensor, degree: int, x: torch.Tensor, y: torch.Tensor, request: StepRequest
) -> EnsembleStep:
    """Choose strategy, kernel, chunk and compilation for training (U, W) on batches shaped like (x, y); probe the
    time.

    ``auto`` batches small steps (S n m <= ``SMALL_STEP_ELEMENTS``) without probing and otherwise times one
    chunk of ``batched`` against ``loop`` (:func:`_probe_all`: a warm-up each, then ``PROBE_REPEATS`` interleaved
    rounds, best of each) and keeps the faster among those that fit in memory; the probe computes gradients only
    (no parameter changes). Runs shorter than ``PROBE_MIN_STEPS`` use the cost model alone (loop on the CPU, batched
    on CUDA). The memory is checked first (:func:`memory_plan`). When the estimated run time exceeds
    ``PRINT_ESTIMATE_S`` the plan is printed on stderr (``request.print_estimate``). ``probe=False`` decides by the
    cost model alone and leaves the time unknown; ``free_bytes`` replaces the measured free memory (to plan for
    another device). ``dry_run`` only plans: nothing is compiled (``compiled`` says whether the run would compile)
    and nothing is printed.

    ``kernel``: when (x, y) is the full grid of k = 2 one-hot inputs and ``degree`` is 2 (:func:`grid_labels`), the
    automatic choice also probes the full-grid kernel (:func:`_grid_gradient`; on the CPU seeds one after
    another, or spread over threads when there are several intra-op threads; on CUDA all seeds per launch, and one
    at a time) against the general one and keeps the faster;
    without a probe it takes the full-grid kernel (faster at every size measured above ``SMALL_STEP_ELEMENTS``).
    ``'general'`` never uses it; ``'grid'`` always does (ValueError when the batch is not such a grid or the strategy
    is ``vmap``). An explicit ``strategy`` keeps the general kernel unless ``kernel='grid'``.
    ``'matmul'`` runs the general kernel with the one-hot product scatter (one-hot inputs only); on CUDA the
    automatic probe times it against ``index_add_`` for every strategy it probes (one seed included) and keeps the
    faster. ``'triton'`` runs each chunk through the fused Triton kernel
    (:func:`verify.train.polynomial_triton.triton_chunk`: CUDA, float32, one-hot inputs, Triton installed;
    ValueError otherwise); on CUDA the automatic probe considers it next to ``matmul`` under the same conditions,
    never on the CPU. Its memory is planned as the general kernel's (an upper bound: it keeps no (points x width)
    buffer), and it is never compiled with ``torch.compile``.
    """
    planner = _Planner(U, W, degree, x, y, request)
    chosen, reason, candidates = planner.candidates()
    if chosen[0]:
        chunk, peak = planner.chunk_for(chosen)
        seconds = planner.time_one(chosen, chunk, peak, reason)
    else:
        chosen, chunk, peak, seconds, reason = planner.probe(candidates)
    plan, compiled_fn = planner.finish(chosen, chunk, peak, seconds, reason)
    long_run = plan.seconds_per_step is not None and plan.seconds_per_step * request.steps >= PRINT_ESTIMATE_S
    if request.print_estimate and long_run and not request.dry_run:
        print(plan.describe(request.steps), file=sys.stderr, flush=True)
    return EnsembleStep(plan, degree, compiled_fn)


class _Planner:
    """The state :func:`plan_step` decides from: the tensors, the request, the shapes and the free memory."""

    def __init__(
        self, U: torch.Tensor, W: torch.Tensor, degree: int, x: torch.Tensor, y: torch.Tensor, request: StepRequest
    ) -> None:
        self.U, self.W, self.degree, self.x, self.y, self.request = U, W, degree, x, y, request
        self.device = device = U.device
        S, m, k, d = U.shape
        self.dense = dense = x.dtype.is_floating_point
        n = x.shape[0]
        r = request
        self.shapes = StepShapes(
            S, m, k, d, W.shape[2], degree, dense, n, r.dataset_points, U.element_size(), r.optimizer_slots
        )
        self.free = free_memory(device) if r.free_bytes is None else int(r.free_bytes)
        self.present = (
            x.numel() * x.element_size() + y.numel() * y.element_size() + self.shapes.n_params * self.shapes.itemsize
        )
        self.threads = torch.get_num_threads() if device.type == "cpu" else 1
        grid_ok = r.kernel in ("auto", "grid") and degree == 2 and k == 2 and not dense
        self.labels = grid_labels(x, y, d) if grid_ok else None
        self.cuda = device.type == "cuda"
        self.large = S * n * m > SMALL_STEP_ELEMENTS
        self.probing = r.probe and r.steps >= PROBE_MIN_STEPS
        # the fused Triton kernel: a CUDA-only candidate (never on the CPU, where only its interpreter runs)
        self.triton_ok = (
            self.cuda
            and U.dtype == torch.float32
            and not dense
            and r.strategy != "vmap"
            and W.shape[2] <= TRITON_MAX_CLASSES
            and triton_available()
        )
        self._validate(n, d, k)

    def _validate(self, n: int, d: int, k: int) -> None:
        r = self.request
        if r.kernel == "grid":
            if self.labels is None:
                raise ValueError(
                    "kernel='grid' needs degree 2 and a batch that is the full grid of k = 2 one-hot inputs (each pair "
                    f"(a, b) once); got degree {self.degree}, k = {k}, {n} points of block size {d}"
                )
            if r.strategy == "vmap":
                raise ValueError("kernel='grid' is a hand-written gradient: strategy must not be 'vmap'")
        if r.kernel == "matmul" and (self.dense or r.strategy == "vmap"):
            raise ValueError(
                "kernel='matmul' (the one-hot product scatter) needs one-hot index inputs and a strategy other than "
                f"vmap; got {'dense inputs' if self.dense else 'strategy vmap'}"
            )
        if r.kernel == "triton" and not self.triton_ok:
            raise ValueError(
                "kernel='triton' (the fused Triton chunk kernel) needs CUDA, float32, one-hot index inputs, a strategy "
                f"other than vmap, at most {TRITON_MAX_CLASSES} classes and Triton installed; got device {self.device.type}, {self.U.dtype}, "
                f"{'dense' if self.dense else 'one-hot'} inputs, strategy {r.strategy}, Triton "
                f"{'installed' if triton_available() else 'not installed'}"
            )

    def candidates(self) -> tuple[tuple[str, str], str, list[tuple[str, str]]]:
        """(chosen (kernel, strategy) or ("", "") when a probe decides, the reason, the candidates to probe)."""
        r, S, cuda = self.request, self.shapes.n_seeds, self.cuda
        n, m = self.shapes.batch_points, self.shapes.width
        # the chunked kernel when no probe decides
        general = r.kernel if r.kernel in ("matmul", "triton") else "general"
        # on CUDA the probe also times the one-hot product scatter against index_add (atomics; docs/benchmarks.md)
        with_matmul = r.kernel == "auto" and cuda and not self.dense
        # and the fused Triton kernel, where Triton is installed, the weights are float32 and it agrees with the
        # eager chunk on a small one (a failure warns and leaves it out)
        with_triton = (
            r.kernel == "auto"
            and self.triton_ok
            and self.large
            and self.probing
            and _triton_agrees(self.device, self.shapes.n_blocks, self.degree, self.shapes.n_classes)
        )
        grid_auto = self.labels is not None and (
            r.kernel == "grid" or (r.strategy == "auto" and self.large and r.chunk_size is None)
        )
        why = "no probe asked" if not r.probe else f"a run of {r.steps} steps is not worth a probe"
        candidates: list[tuple[str, str]] = []  # (kernel, strategy)
        if r.kernel == "grid" and r.strategy != "auto":
            return ("grid", r.strategy), "kernel and strategy set by the configuration", []
        if r.strategy != "auto":
            return (general, r.strategy), "strategy set by the configuration", []
        if grid_auto and not self.probing:
            each = "all seeds per launch" if cuda else "seeds one after another"
            return ("grid", "batched" if cuda else "loop"), f"cost model ({why}): full-grid kernel, {each}", []
        if grid_auto:
            parallel = not cuda and self.threads > 1 and S > 1
            if r.kernel != "grid":
                candidates += [("general", "batched")]
                if S > 1:
                    candidates += [("general", "loop")] + ([("general", "parallel")] if parallel else [])
                if with_matmul:
                    candidates += [("matmul", "batched")] + ([("matmul", "loop")] if S > 1 else [])
                if with_triton:
                    candidates += [("triton", "batched")] + ([("triton", "loop")] if S > 1 else [])
            if (
                cuda
            ):  # all seeds per launch (1.4x the general batched step on an H200), or one at a time if that won't fit
                candidates += [("grid", "batched")] + ([("grid", "loop")] if S > 1 else [])
            else:
                candidates += [("grid", "parallel" if parallel else "loop")]  # one intra-op thread per seed beats two
            return ("", ""), "", candidates
        if S == 1 and not (with_matmul and self.large and self.probing):
            return (general, "batched"), "one seed", []
        if S == 1:
            return (
                ("", ""),
                "",
                [("general", "batched"), ("matmul", "batched")] + ([("triton", "batched")] if with_triton else []),
            )
        if not self.large:
            reason = f"small step (S n m = {S * n * m} <= {SMALL_STEP_ELEMENTS}): batching amortises per-call overhead"
            return (general, "batched"), reason, []
        if not self.probing:
            chosen = (general, "batched" if cuda else "loop")
            return chosen, f"cost model ({why}): {chosen[1]} on {self.device.type}", []
        candidates = [(general, "batched"), (general, "loop")]
        if self.device.type == "cpu" and self.threads > 1:
            candidates.append((general, "parallel"))
        if with_matmul:
            candidates += [("matmul", "batched"), ("matmul", "loop")]
        if with_triton:
            candidates += [("triton", "batched"), ("triton", "loop")]
        return ("", ""), "", candidates

    def chunk_for(self, candidate: tuple[str, str]) -> tuple[int, int]:
        """:func:`_chunk_for` of ``candidate`` under this request."""
        r = self.request
        return _chunk_for(
            self.shapes,
            candidate,
            self.device.type,
            self.free,
            r.chunk_size,
            r.ignore_memory_check,
            self.present,
            self.threads,
        )

    def plan(
        self,
        candidate: tuple[str, str],
        chunk: int,
        peak: int,
        seconds: float | None,
        reason: str,
        compiled: bool = False,
    ) -> StepPlan:
        """The :class:`StepPlan` of ``candidate`` with these numbers."""
        kernel, strategy = candidate
        return _plan(
            self.shapes, strategy, chunk, compiled, self.device, peak, self.free, seconds, reason, self.threads, kernel
        )

    def time_one(self, chosen: tuple[str, str], chunk: int, peak: int, reason: str) -> float | None:
        """The probed seconds per step of a candidate chosen without a probe (only for large probed runs)."""
        if not (self.large and self.probing):
            return None
        return self.time_plan(self.plan(chosen, chunk, peak, None, reason))

    def time_plan(self, plan: StepPlan, compiled: Callable[..., Any] | None = None) -> float:
        """Seconds per step of ``plan`` alone on this request's tensors (:func:`_probe_all` of one candidate)."""
        return _probe_all({("", ""): plan}, self.U, self.W, self.degree, self.x, self.y, compiled)[("", "")]

    def probe(self, candidates: list[tuple[str, str]]) -> tuple[tuple[str, str], int, int, float, str]:
        """Time every candidate that fits in memory; (the fastest, its chunk, peak, seconds per step, the reason)."""
        chunks: dict[tuple[str, str], tuple[int, int]] = {}
        refusal = None
        for cand in candidates:
            try:
                chunks[cand] = self.chunk_for(cand)
            except InsufficientMemoryError as exc:
                refusal = exc
        if not chunks:
            assert refusal is not None
            raise refusal
        trials = {cand: self.plan(cand, c, pk, None, "") for cand, (c, pk) in chunks.items()}
        timings = _probe_all(trials, self.U, self.W, self.degree, self.x, self.y)
        chosen = min(timings, key=lambda c: timings[c])
        reason = "probe: " + ", ".join(f"{_label(c)} {1e3 * t:.3g} ms/step" for c, t in timings.items())
        if len(chunks) < len(candidates):
            reason += f" ({', '.join(_label(c) for c in candidates if c not in chunks)} would not fit in memory)"
        chunk, peak = chunks[chosen]
        return chosen, chunk, peak, timings[chosen], reason

    def finish(
        self, chosen: tuple[str, str], chunk: int, peak: int, seconds: float | None, reason: str
    ) -> tuple[StepPlan, Callable[..., Any] | None]:
        """Compile the chosen chunk gradient when asked (or, automatically, for long runs where it is faster); the
        final plan and the compiled function (None: eager)."""
        r, (kernel, strategy) = self.request, chosen
        want_compile = r.compile
        if r.compile is None:
            want_compile = seconds is not None and seconds * r.steps >= COMPILE_MIN_RUN_S
        compilable = strategy not in ("vmap", "parallel") and kernel in ("general", "matmul")
        want_compile = bool(want_compile) and compilable
        compiled_fn = None
        if want_compile and r.dry_run:
            reason += "; would compile"
        elif want_compile:
            compiled_fn = _compile_for(
                self.shapes, strategy, chunk, self.U, self.W, self.degree, self.x, self.y, kernel
            )
            reason += "; compiled" if compiled_fn is not None else "; compilation failed, eager"
        compiled = compiled_fn is not None or (r.dry_run and want_compile)
        plan = self.plan(chosen, chunk, peak, seconds, reason, compiled)
        if compiled_fn is None:
            return plan, None
        if self.cuda:
            torch.cuda.reset_peak_memory_stats(self.device)
        fast = self.time_plan(plan, compiled_fn)
        if r.compile is None and seconds is not None and fast >= seconds:  # automatic: kept only when measured faster
            compiled_fn = None
            reason += f" but not faster ({1e3 * fast:.3g} against {1e3 * seconds:.3g} ms/step): eager"
        else:
            seconds = fast
            if self.cuda:  # the compiled graph keeps buffers of its own: its peak is measured
                peak = max(peak, int(torch.cuda.max_memory_allocated(self.device)))
        return self.plan(chosen, chunk, peak, seconds, reason, compiled_fn is not None), compiled_fn


def _label(candidate: tuple[str, str]) -> str:
    kernel, strategy = candidate
    return strategy if kernel == "general" else f"{kernel}-{strategy}"


def _chunk_for(
    shapes: StepShapes,
    candidate: tuple[str, str],
    device_type: str,
    free: int | None,
    chunk_size: int | None,
    ignore_memory_check: bool,
    present: int,
    threads: int,
) -> tuple[int, int]:
    """(chunk, peak bytes) of a (kernel, strategy) candidate: :func:`memory_plan` for the general kernel; for the
    full-grid kernel, blocks of :func:`grid_rows` rows (``chunk_size // d`` rows when given; fewer when the free
    memory binds) and a peak of the fixed bytes plus, per seed in flight, two (m, rows, C) buffers, the (d, rows, C)
    bias, logits and G, and six (m, d) arrays.

    Raises
    ------
    InsufficientMemoryError
        When even one row per block does not fit (or the given ``chunk_size`` does not), unless
        ``ignore_memory_check``.
    """
    kernel, strategy = candidate
    if kernel in ("general", "matmul", "triton"):  # the fused kernel's smaller peak is not counted yet (issue 33)
        onehot = shapes.itemsize * shapes.n_blocks * shapes.block_size if kernel == "matmul" else 0  # (c, k d) matrix
        return memory_plan(
            shapes, strategy, device_type, free, chunk_size, ignore_memory_check, present, threads, onehot
        )
    d, m, C, b = shapes.block_size, shapes.width, shapes.n_classes, shapes.itemsize
    in_flight = _workers_of(strategy, shapes.n_seeds, threads) * _group_of(strategy, shapes.n_seeds)
    given = chunk_size is not None
    rows = max(1, min(d, int(chunk_size) // d)) if chunk_size is not None else grid_rows(m, C, b, d, device_type)

    def refusal(rows: int, peak: int, fitting: int) -> InsufficientMemoryError:
        return _chunk_refusal(
            f"the full-grid kernel would need about {format_gib(peak)} on {device_type} ({rows} rows of {d} points x "
            f"{in_flight} seed(s) per block, width {m})",
            free,
            f"chunk_size <= {fitting * d} points would fit" if fitting >= 1 else "no block fits",
            "Lower chunk_size",
        )

    fit = _UnitsFit(
        shapes.fixed_bytes() + in_flight * b * 6 * m * d, in_flight * b * (2 * m * C + 3 * d * C), free, present
    )
    rows, peak = fit.size(rows, given, int, refusal, ignore_memory_check)
    return rows * d, peak


def _plan(
    shapes: StepShapes,
    strategy: str,
    chunk: int,
    compiled: bool,
    device: torch.device,
    peak: int,
    free: int | None,
    seconds: float | None,
    reason: str,
    threads: int = 1,
    kernel: str = "general",
) -> StepPlan:
    group = _group_of(strategy, shapes.n_seeds)
    workers = _workers_of(strategy, shapes.n_seeds, threads)
    dtype = {8: "float64", 4: "float32"}.get(shapes.itemsize, f"{8 * shapes.itemsize}-bit")
    return StepPlan(
        strategy,
        group,
        chunk,
        compiled,
        str(device),
        dtype,
        shapes.flops_per_step,
        peak,
        free,
        seconds,
        reason,
        workers,
        kernel,
    )


def _probe_call(
    step: EnsembleStep, U: torch.Tensor, W: torch.Tensor, x: torch.Tensor, y: torch.Tensor
) -> tuple[Callable[[], Any], float]:
    """The probe of ``step`` (its plan, compiled or not) and the factor that scales its time to a whole step: the
    first ``PROBE_CHUNKS`` chunks of the first group (of the first ``workers`` groups, run concurrently, for
    ``parallel``; one chunk when a group holds several seeds, whose work dwarfs the per-call costs; whole seeds for
    the full-grid kernel), scaled by the number of chunks and rounds of groups (gradients only; nothing is
    updated)."""
    plan = step.plan
    n, S = x.shape[0], U.shape[0]
    c = min(PROBE_CHUNKS * plan.chunk, n)  # several chunks, as in a step: per-call costs are not over-weighted
    if plan.group > 1:
        c = min(plan.chunk, n)  # one chunk of all seeds: its per-call costs are shared by the seeds already
    if plan.kernel == "grid":
        c = n  # the full-grid kernel needs the whole grid: whole seeds are timed
    g = plan.group * plan.workers
    return (lambda: step.gradient(U[:g], W[:g], x[:c], y[:c])), (n / c) * math.ceil(S / g)


def _probe_all(
    trials: dict[tuple[str, str], StepPlan],
    U: torch.Tensor,
    W: torch.Tensor,
    degree: int,
    x: torch.Tensor,
    y: torch.Tensor,
    compiled: Callable[..., Any] | None = None,
) -> dict[tuple[str, str], float]:
    """Seconds per step of each candidate plan: every probe warmed up once, then ``PROBE_REPEATS`` rounds that time
    each candidate in turn, keeping each one's best. Interleaved rounds expose the candidates to the same machine
    state (clock frequency, other processes, caches); timing one candidate after another biased the choice by
    10-30 % on the 2-core CPU (it preferred the general kernel over a full-grid kernel that was faster)."""
    calls = {cand: _probe_call(EnsembleStep(plan, degree, compiled), U, W, x, y) for cand, plan in trials.items()}
    clock = time.process_time if U.device.type == "cpu" and torch.get_num_threads() == 1 else time.perf_counter
    # only plans that take much of the free memory risk fragmentation; emptying the cache for small ones would
    # charge their timed calls the device allocations a run pays once
    large = U.device.type == "cuda" and any(
        p.free_bytes and p.peak_bytes > PROBE_RELEASE_FRACTION * p.free_bytes for p in trials.values()
    )
    release = U.device if large else torch.device("cpu")
    for fn, _ in calls.values():
        fn()
        _release_cache(release)
    synchronize(U.device)
    best = {cand: math.inf for cand in calls}
    for _ in range(PROBE_REPEATS):
        for cand, (fn, _) in calls.items():
            t0 = clock()
            fn()
            synchronize(U.device)
            best[cand] = min(best[cand], clock() - t0)
            _release_cache(release)
    return {cand: best[cand] * calls[cand][1] for cand in calls}


def _release_cache(device: torch.device) -> None:
    """On CUDA, hand the caching allocator's free blocks back between probe calls: candidates of different chunk
    shapes otherwise leave blocks the run cannot reuse, and a plan that fits (measured: 66.6 of 79.2 GiB, Shi
    k = 5 at thesis scale) ran out of memory with 16.6 GiB reserved but unallocated (docs/benchmarks.md)."""
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _compile_for(
    shapes: StepShapes,
    strategy: str,
    chunk: int,
    U: torch.Tensor,
    W: torch.Tensor,
    degree: int,
    x: torch.Tensor,
    y: torch.Tensor,
    kernel: str = "general",
) -> Callable[..., Any] | None:
    """The compiled chunk gradient of a plan (:func:`_compile_chunk` on its first chunk and first group)."""
    g = _group_of(strategy, shapes.n_seeds)
    Ug, Wg = U.detach()[:g], W.detach()[:g]
    d = Ug.shape[3]
    dense = shapes.dense
    table = weights_table(Ug, dense)
    xc = _chunk_inputs(x.to(U.dtype) if dense else x, 0, chunk, d, dense)
    return _compile_chunk(degree, dense, table, Wg, xc, y[:chunk], _scatter_of(kernel))
