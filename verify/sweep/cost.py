r"""The cost estimate printed before a thesis-scale grid starts: cells x estimated seconds per cell on the
current device (docs/running_at_scale.md).

A grid states the work of a cell as a :class:`CellCost` (updates and multiply-adds per update, evaluations and
multiply-adds per evaluation; the step budget is an upper bound, since runs stop once every seed converged).
:func:`calibrate` times a batched two-layer-MLP SGD step, the kernel mix of the seed-ensemble trainers, at a
small and a large size on the device and fits seconds = overhead + multiply-adds / throughput, so

.. math:: t_\text{cell} \approx \text{steps}\,(a + F_\text{step}/b) + \text{evals}\,(a + F_\text{eval}/b).

The estimate is a planning number, not a measurement: the step budget makes it an upper bound, and the
calibration is only as good as the device is quiet (on a shared 2-core CPU it came within 1.3x to 4x of the
measured quick Pareto grid at the steps the cells ran; ``benchmarks/bench_sweep.py`` prints both).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from verify.runtime.memory import format_seconds

from .session import SweepSession, in_shard
from .store import seeds_text

if TYPE_CHECKING:
    from .grid import Grid

__all__ = [
    "CONFIRM_ABOVE_S",
    "PLAN_PROBE_BUDGET_S",
    "PROBE_MAX_MODEL_STEP_S",
    "CellCost",
    "DeviceSpeed",
    "GridEstimate",
    "ProbeBudget",
    "StepScale",
    "calibrate",
    "estimate_grid",
    "format_seconds",
    "probe_cell_step",
    "probe_scale",
]

#: Runs estimated above this many seconds of wall time need ``--confirm-cost``.
CONFIRM_ABOVE_S = 3600.0

#: The probe of a grid's median cell is skipped where the model puts one of its updates above this many seconds
#: (two short runs of it would take minutes).
PROBE_MAX_MODEL_STEP_S = 0.05

#: Seconds of probing one plan may spend on its grids (``tvk report --plan`` stays under a minute); a grid whose
#: turn comes after that is not probed. 15 s since 2026-11-30 (20 before, 30 until 2026-11-29): the rest of an idle
#: plan of every claim took about 20 s on the 2-core CPU, and the last probe may run a few seconds past the budget
#: (its set-up and first evaluation come before the time is checked).
PLAN_PROBE_BUDGET_S = 15.0


@dataclass(frozen=True)
class CellCost:
    """The work of one cell: ``steps`` updates of ``step_flops`` multiply-adds (all seeds together) and
    ``evals`` evaluations of ``eval_flops`` multiply-adds."""

    steps: int
    step_flops: float
    evals: int = 0
    eval_flops: float = 0.0

    def __post_init__(self) -> None:
        if self.steps < 0 or self.evals < 0 or self.step_flops < 0 or self.eval_flops < 0:
            raise ValueError(f"cell cost entries must be >= 0, got {self}")


@dataclass(frozen=True)
class DeviceSpeed:
    """seconds(F multiply-adds) = ``overhead_s`` + F / ``flops_per_s`` for one launch of a step or evaluation."""

    device: str
    overhead_s: float
    flops_per_s: float

    def step_seconds(self, cost: CellCost) -> float:
        """Estimated seconds of one update of a cell."""
        return self.overhead_s + cost.step_flops / self.flops_per_s

    def eval_seconds(self, cost: CellCost) -> float:
        """Estimated seconds of one evaluation of a cell."""
        return self.overhead_s + cost.eval_flops / self.flops_per_s

    def seconds(self, cost: CellCost, step_scale: float = 1.0, eval_scale: float = 1.0) -> float:
        """Estimated seconds of one cell, its updates' time multiplied by ``step_scale`` (a probe's ratio,
        :func:`probe_scale`) and its evaluations' by ``eval_scale`` (likewise)."""
        return cost.steps * self.step_seconds(cost) * step_scale + cost.evals * self.eval_seconds(cost) * eval_scale


def _time_mlp_steps(device: Any, seeds: int, batch: int, n: int, width: int, steps: int) -> float:
    """Seconds per SGD step of a seed-batched MLP u^T relu(Wx + b) with the hinge loss (fresh ±1 data)."""
    import torch  # deferred: the cost model is importable without torch

    g = torch.Generator(device="cpu").manual_seed(0)
    W = (torch.randn(seeds, n, width, generator=g) / math.sqrt(n)).to(device).requires_grad_()
    u = (torch.randn(seeds, width, 1, generator=g) / math.sqrt(width)).to(device).requires_grad_()

    def step() -> None:
        x = torch.randint(0, 2, (seeds, batch, n), device=device).float() * 2 - 1
        y = x[..., :3].prod(-1)
        out = torch.bmm(torch.relu(torch.bmm(x, W)), u).squeeze(-1)
        loss = torch.clamp(1 - y * out, min=0).mean()
        loss.backward()
        with torch.no_grad():
            for param in (W, u):
                param.sub_(0.01 * param.grad)
                param.grad = None

    for _ in range(3):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def calibrate(device: str = "auto") -> DeviceSpeed:
    """Fit :class:`DeviceSpeed` on ``device`` from a tiny step (launch overhead) and a large one (throughput);
    takes about a second."""
    from verify.runtime.device import resolve_device  # deferred: imports torch

    dev = resolve_device(device)
    small = (1, 8, 8, 4)
    large = (8, 32, 256, 512) if dev.type == "cpu" else (64, 32, 512, 4096)
    t_small = min(_time_mlp_steps(dev, *small, steps=60) for _ in range(2))
    t_large = min(_time_mlp_steps(dev, *large, steps=10) for _ in range(2))
    flops = [3 * s * b * n * w for s, b, n, w in (small, large)]  # forward + backward of the first layer dominate
    rate = (flops[1] - flops[0]) / max(t_large - t_small, 1e-9)
    return DeviceSpeed(str(dev), max(t_small - flops[0] / rate, 1e-6), rate)


_PROBED: dict[tuple[Any, str], float | None] = {}


def _probe_key(config: Any, device: str) -> tuple[Any, str]:
    """A probe's cache key: the configuration without its step budget (``eval_every`` stays: the evaluations are
    counted), and the device."""
    return dataclasses.replace(config, steps=0), device


def probe_cell_step(config: Any, device: str, seconds: float | None = None) -> float | None:
    """Seconds per update of the real trainer of a grid cell's configuration on ``device``, timed now (once per
    configuration and device in a process: grids that share a cell share its probe); None where the trainer has no
    probe (only the sparse-parity trainer has one, :func:`verify.train.sparse_parity.probe_parity_step`), the
    cell does not fit the free memory or its probe ran past ``seconds``."""
    from verify.runtime.memory import InsufficientMemoryError  # deferred: imports torch
    from verify.train.sparse_parity import SparseParityConfig, probe_parity_step

    if not isinstance(config, SparseParityConfig):
        return None
    key = _probe_key(config, device)
    if key not in _PROBED:
        try:
            _PROBED[key] = probe_parity_step(config, device, seconds=seconds)
        except InsufficientMemoryError:
            _PROBED[key] = None
    return _PROBED[key]


@dataclass
class ProbeBudget:
    """Seconds of probing left to a plan (:data:`PLAN_PROBE_BUDGET_S`); :func:`probe_scale` spends it."""

    seconds: float = PLAN_PROBE_BUDGET_S
    spent: float = 0.0

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.seconds


def _short(seconds: float) -> str:
    """A step's time: milliseconds below a second, else :func:`format_seconds`."""
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else format_seconds(seconds)


@dataclass(frozen=True)
class StepScale:
    """A grid's median cell: its update as the cost model has it (``model_s``) and as the real trainer ran it now
    (``probed_s``); every cell's update time is multiplied by ``ratio`` = probed / model."""

    model_s: float
    probed_s: float

    @property
    def ratio(self) -> float:
        return self.probed_s / self.model_s

    def describe(self) -> str:
        return (
            f"the median cell's update probed now at {_short(self.probed_s)} against the model's "
            f"{_short(self.model_s)} (x{self.ratio:.3g} on every cell's updates)"
        )


def probe_scale(cells: list[Any], cost: Any, speed: DeviceSpeed, budget: ProbeBudget | None = None) -> StepScale | None:
    """Time the real update of the median cell of ``cells`` (by the model's cell time; :func:`probe_cell_step`) and
    compare it with the model's update: the multiply-adds model counts one launch per update, while a trainer's
    update launches dozens of small kernels (the Fig. B.11 cells: 12 times the model on the loaded 2-core CPU).
    None where there are no cells, no probe for their trainer, the model's update exceeds
    :data:`PROBE_MAX_MODEL_STEP_S`, or ``budget`` is spent (the probe's wall time is charged to it; a cell probed
    before in this process, such as the Pareto grid's for Finding (3), which observes the same cells, costs nothing
    and is used even then). A probe stops once it has run past what is left of ``budget`` (it is then None: a
    median cell whose update is slower than the model thought cannot take the plan past its minute)."""
    if not cells:
        return None
    costs = [cost(c) for c in cells]
    median = sorted(range(len(cells)), key=lambda i: speed.seconds(costs[i]))[len(cells) // 2]
    model = speed.step_seconds(costs[median])
    config = cells[median].config
    if model > PROBE_MAX_MODEL_STEP_S:
        return None
    known = dataclasses.is_dataclass(config) and _probe_key(config, speed.device) in _PROBED
    if budget is not None and budget.exhausted and not known:
        return None
    start = time.perf_counter()
    probed = probe_cell_step(config, speed.device, None if budget is None else budget.seconds - budget.spent)
    if budget is not None:
        budget.spent += time.perf_counter() - start
    return None if probed is None or probed <= 0 else StepScale(model, probed)


@dataclass(frozen=True)
class GridEstimate:
    """A grid's planned cells, those this job still runs, and their estimated device seconds (the updates scaled
    by ``probe`` where the median cell was probed)."""

    claim_id: str
    cells: int
    pending: int
    median_cell_s: float
    pending_s: float
    probe: StepScale | None = None

    def describe(self) -> str:
        text = (
            f"  {self.claim_id}: {self.cells} cells, {self.pending} to run x ~{format_seconds(self.median_cell_s)} "
            f"per cell (median) = ~{format_seconds(self.pending_s)} of device time"
        )
        return text + (f"; {self.probe.describe()}" if self.probe else "; not probed")


def estimate_grid(grid: Grid, config: Any, speed: DeviceSpeed, session: SweepSession | None = None) -> GridEstimate:
    """Estimate the cells of ``grid`` at ``config`` still to run in ``session`` (not stored, in its shard);
    follow-up stages count at their worst case; the updates scaled by a probe of the median cell
    (:func:`probe_scale`) where its trainer has one."""
    if grid.cost is None:
        raise ValueError(f"{grid.claim_id}: the grid states no cell cost")
    shard = session.shard if session else None
    stages = [list(cells) for cells in grid.plan(config)]
    probe = probe_scale([c for cells in stages for c in cells], grid.cost, speed)
    scale = probe.ratio if probe else 1.0
    every, pending = [], []
    for cells in stages:
        keys = [(grid.key(c), c.seeds) for c in cells]
        have = session.store.get(grid.claim_id, keys, session.revision) if session else {}
        for j, (cell, (h, s)) in enumerate(zip(cells, keys)):
            sec = speed.seconds(grid.cost(cell), scale)
            every.append(sec)
            if (h, seeds_text(s)) not in have and in_shard(j, shard):
                pending.append(sec)
    median = statistics.median(every) if every else 0.0
    return GridEstimate(grid.claim_id, len(every), len(pending), median, float(sum(pending)), probe)
