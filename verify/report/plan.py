"""``tvk report --plan``: what the selected claims would cost on a device, before anything runs (docs/running_at_scale.md,
"The plan").

For every selected claim the plan gives the estimated wall time and peak memory, whether that memory fits the
device, and how the numbers were obtained (``basis``); nothing is trained and no claim runs. The sources, in order:

1. ``measured``: a record of this claim with the same configuration (its ``config_hash``, at any scale) on the same
   device type, in the results archive (``--archive``; not when stale on code) or in the report directory
   (``--out``: ``results.json``, ``results.jsonl``). Its wall time is a measurement, not an estimate.
2. ``grid cost model``: grid claims (:mod:`verify.sweep`): every planned cell's multiply-adds at a one-second
   calibration of the device (:func:`verify.sweep.cost.calibrate`), an upper bound since runs stop once every seed
   converged; peak memory is the largest cell's trainer estimate where the trainer has one
   (:func:`verify.train.sparse_parity.memory_estimate`).
3. ``trainer cost model``: the polynomial-network training claims (Shi Thm 4.9, Figs 4.1/4.2, Edelman Thm 7.7-7.9):
   the trainer's step shapes (multiply-adds per update, peak memory; :mod:`verify.train.polynomial_step`) at the
   calibrated rate; claims registered in :data:`ESTIMATORS` by configuration type; and training claims whose
   trainer counts its step (:func:`_shapes_estimate`: the attention trainers by
   :func:`verify.train.attention.step_multiply_adds`, the ReLU modular network by
   :func:`verify.train.modular_relu.step_multiply_adds`, with the trainers' memory estimates).
   ``probe``: the Ch. 8 minimal model, whose step is timed at its full shapes
   (:func:`verify.train.markov.probe_minimal_step`, once per shape); Karp Ch. 3's SGD, whose updates and evaluations
   the real trainer times at each run's shapes (:func:`verify.train.local_signal.probe_signal_step`); Shi Thm 5.4.1's
   LSA trainers (:func:`_lsa_estimate`). Claims that observe another claim's grid (Edelman Finding (3) on the Pareto
   grid, :func:`verify.sweep.grid.reads_grid`) cost that grid's cells.
4. otherwise ``unknown``: the time or memory is reported as unknown (null in JSON), never guessed. A training
   claim's trainer measures its time per step only once it runs (:class:`verify.runtime.memory.RunEstimate`).

A training run or grid cells that several claims of the plan share (one work unit of the report) are counted in each
claim's time and once in the total's ``seconds_once_total`` (:attr:`PlanRow.shared`, :func:`once_seconds`).

The calibration needs the device: ``--plan --device cuda`` on a machine without CUDA leaves every estimated time
unknown (measured ones stay) and the fit unknown.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verify.runtime.claim_run import resumed_steps, resumed_text
from verify.runtime.jsonable import config_hash
from verify.runtime.memory import MEMORY_SAFETY, format_seconds, format_step

if TYPE_CHECKING:
    from verify.sweep.cost import StepScale

__all__ = [
    "ESTIMATORS",
    "PLAN_SCHEMA",
    "Estimate",
    "PlanRow",
    "affordable",
    "format_plan",
    "make_plan",
    "plan_document",
]

PLAN_SCHEMA = "tvk-plan/1"
#: The plan's threshold for "affordable" runs (seconds): the campaign runs what the CPU plan puts at or below it.
AFFORDABLE_S = 2 * 3600.0


@dataclass(frozen=True)
class Estimate:
    """What an estimator knows: seconds and peak bytes (None: unknown) and how it got them."""

    seconds: float | None
    memory_bytes: int | None
    basis: str
    note: str = ""
    #: The trainer runs in ``seconds`` and the seconds of each (:func:`_shapes_estimate`), for :func:`_mark_shared`.
    runs: tuple[tuple[Any, float], ...] = ()
    #: The modelled seconds of one update, where ``seconds`` also counts evaluations (:func:`_polynomial_estimate`):
    #: what :func:`_probe_polynomial` compares with the trainer's probe of an update.
    per_update: float | None = None
    #: Likewise the modelled seconds of one evaluation and how many ``seconds`` counts (``seconds`` = steps x
    #: ``per_update`` + ``evaluations`` x ``per_evaluation``), which :func:`_probe_polynomial` scales by its own probe.
    per_evaluation: float | None = None
    evaluations: int = 0


@dataclass(frozen=True)
class PlanRow:
    """One claim of the plan (the JSON object of ``claims[]``). ``shared`` lists the parts of ``seconds`` that
    earlier claims of the plan already pay, as (claim id, seconds): a training run or grid cells that the two share
    in one work unit of the report (:func:`work_unit`), trained once when they run together."""

    id: str
    kind: str
    source: str
    seconds: float | None
    memory_bytes: int | None
    fits: bool | None
    basis: str
    note: str
    shared: tuple[tuple[str, float], ...] = ()

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> PlanRow:
        """The row of a ``claims[]`` object of a ``--plan --json`` document (``id`` and ``seconds`` required; a
        field it lacks, as in a plan written before the field existed, takes its empty value)."""
        return cls(
            id=obj["id"],
            kind=obj.get("kind", ""),
            source=obj.get("source", ""),
            seconds=obj["seconds"],
            memory_bytes=obj.get("memory_bytes"),
            fits=obj.get("fits"),
            basis=obj.get("basis", ""),
            note=obj.get("note", ""),
            shared=tuple((str(owner), float(s)) for owner, s in obj.get("shared", ())),
        )


#: Estimators by configuration type: ``fn(claim, config, device, speed) -> Estimate | None`` (None: no estimate).
ESTIMATORS: dict[type, Callable[[Any, Any, str, Any], Estimate | None]] = {}


def _measured(
    claim: Any, config: Any, device_type: str, records: Iterable[Mapping[str, Any]], archive: bool
) -> Estimate | None:
    """The latest record of ``claim`` at the same configuration hash on the same device type.

    A record that resumed from a checkpoint (``metadata.resumed_from``) timed only the run's last part, so its wall
    time is not a time to plan by: in a report directory it is passed over (the cost models estimate), in the
    archive the row stays ``measured`` (a current record, which ``--within`` leaves alone) with an unknown time
    and a note that says why."""
    from verify.report.archive import finished_at, staleness

    best, want = None, None
    for rec in records:
        if rec.get("id") != claim.id:
            continue
        if want is None:
            want = config_hash(config)  # only for a claim with records: hashing a large configuration takes time
        meta = rec.get("metadata") or {}
        device = str(rec.get("device") or meta.get("device") or "")
        h = rec.get("config_hash") or config_hash(rec.get("config"))
        seconds = rec.get("wall_time_s", meta.get("runtime_s"))
        if h != want or device.split(":")[0] != device_type or not isinstance(seconds, (int, float)):
            continue
        if archive and staleness(rec, claim, want) not in (None, "its configuration changed since"):
            continue  # the code changed: the old time may not hold
        if not archive and resumed_steps(meta):
            continue  # a resumed run's time is its last part's
        t = finished_at(rec)
        key = t.timestamp() if t else 0.0
        if best is None or key > best[0]:
            best = (key, float(seconds), rec)
    if best is None:
        return None
    rec = best[2]
    where = "archive" if archive else "report directory"
    t = finished_at(rec)
    when = t.strftime("%Y-%m-%d") if t else "unknown date"
    scale = rec.get("scale")
    note = f"{where}, {scale} record with this configuration, {when}"
    resumed = resumed_text(rec.get("metadata") or {})
    if resumed:
        return Estimate(
            None, None, "measured", f"{note}; {resumed}: its {format_seconds(best[1])} timed only the run's last part"
        )
    return Estimate(best[1], None, "measured", note)


def _report_records(out: str | Path | None) -> list[dict[str, Any]]:
    """The records of the report directory ``out`` (``results.json``, then its journal)."""
    if not out:
        return []
    out = Path(out)
    records: list[dict[str, Any]] = []
    try:
        doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
        records += [r for r in doc.get("claims", []) if isinstance(r, dict)] if isinstance(doc, dict) else []
    except (OSError, ValueError):
        pass
    try:
        for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                records.append(rec)
    except OSError:
        pass
    return records


def _cell_memory(config: Any) -> int | None:
    from verify.train.sparse_parity import SparseParityConfig, memory_estimate

    return memory_estimate(config) if isinstance(config, SparseParityConfig) else None


def _grid_estimate(claim: Any, grid: Any, config: Any, speed: Any, budget: Any = None, probe: bool = True) -> Estimate:
    import statistics

    seconds = None
    note = "no calibration on this device"
    cells = [c for stage in grid.plan(config) for c in stage]  # follow-up stages at their worst case
    if grid.cost is None:
        note = "the grid states no cell cost"
    elif speed is not None:  # as verify.sweep.cost.estimate_grid, without the store keys (no session here)
        from verify.sweep.cost import probe_scale

        scale = probe_scale(cells, grid.cost, speed, budget) if probe else None
        each = [speed.seconds(grid.cost(c), scale.ratio if scale else 1.0) for c in cells]
        seconds = float(sum(each))
        median = statistics.median(each) if each else 0.0
        unprobed = "not probed" + (
            f" (the plan's {format_seconds(budget.seconds)} of probes were spent)"
            if budget and budget.exhausted
            else ""
        )
        note = f"{len(each)} cells x ~{format_seconds(median)} (median), step budgets as upper bounds; " + (
            scale.describe() if scale else unprobed
        )
    if getattr(claim.observe, "__reads_grid__", None) is grid:
        note = (
            "the cells of the grid it observes (shared through the sweep store: paid once for both claims when run together); "
            + note
        )
    mems = [_cell_memory(c.config) for c in cells]
    memory = max(mems) if mems and all(m is not None for m in mems) else None  # type: ignore[type-var]
    if memory is None:
        note += "; no memory estimator for its cells"
    return Estimate(seconds, memory, "grid cost model" if seconds is not None else "unknown", note)


def _probe_grids(rows: list[PlanRow], grids: list[tuple[float, int, Any, Any, Any]], speed: Any) -> None:
    """Re-estimate the grid rows ``grids`` (unprobed seconds, row index, claim, grid, config) with a probe of their
    median cell (:func:`verify.sweep.cost.probe_scale`), the cheapest first, within one
    :data:`verify.sweep.cost.PLAN_PROBE_BUDGET_S` (the claims near the 2-hour threshold are probed first; once it is
    spent, only cells probed before are used)."""
    from verify.sweep.cost import ProbeBudget

    budget = ProbeBudget()
    for _, i, claim, grid, config in sorted(grids, key=lambda g: g[0]):
        est = _grid_estimate(claim, grid, config, speed, budget)
        rows[i] = replace(rows[i], seconds=est.seconds, note=est.note)


def _polynomial_task(config: Any) -> tuple[Any, int] | None:
    """The task and activation degree a polynomial-network training claim trains on (what it passes to
    :func:`verify.claims.training.train_for_claim`): Shi Thm 4.9 / Edelman Thm 7.7 (modular addition, degree k; Shi
    Figs 4.1/4.2 train on an even split of it, :func:`verify.train.modular_transformer.train_polynomial_split`, counted
    as the whole task: an upper bound on the data's memory),
    Edelman Thm 7.8 (sparse parity, degree k) and Thm 7.9 (a finite group, degree 2); None for other configs."""
    name = type(config).__name__
    if name in ("ModularTrainingConfig", "PolySplitConfig"):  # the split trains on a part of the same task
        from numerics.modular import ModularTask

        return ModularTask(config.p, config.k), int(config.k)
    if name == "ParityTrainingConfig":
        from numerics.parity import SparseParityTask

        return SparseParityTask(config.n, tuple(range(config.k))), int(config.k)
    if name == "GroupTrainingConfig":
        from numerics.groups import GroupTask
        from theory import finite_groups as fg

        return GroupTask(fg.group(config.group)), 2
    return None


def _polynomial_estimate(claim: Any, config: Any, device: str, speed: Any, free: int | None = None) -> Estimate | None:
    """The polynomial-network training claims (:func:`_polynomial_task`): the trainer's own step shapes
    (:class:`verify.train.polynomial_step.StepShapes`: multiply-adds per update, peak memory of the ``loop`` strategy
    with its chunk) at the calibrated rate; the task's sizes are read and its data not built (:func:`make_plan` then
    scales the times by one probe of the trainer, :func:`_probe_polynomial`). The evaluations are counted too
    (:func:`verify.runtime.loop.evaluation_count` of them, :attr:`StepShapes.flops_per_evaluation` each): 0.13-0.31%
    of the runs measured by ``benchmarks/bench_polynomial_eval.py``, but about as much as the updates where a
    mini-batch is a small part of a large dataset (Shi Fig. 4.1/4.2 at k = 5: 1,024 of 6.4 million points)."""
    from verify.runtime.loop import evaluation_count
    from verify.sweep.cost import CellCost
    from verify.train.polynomial_step import MIN_CHUNK, StepShapes, memory_plan

    train = getattr(config, "train", None)
    found = _polynomial_task(config) if train is not None else None
    if found is None:
        return None
    task, degree = found
    seeds, points = len(train.seeds), int(task.n_points)
    batch = min(int(train.batch_size), points) if train.batch_size else points
    dense = task.batch(0, 1)[0].dtype.kind == "f"  # float inputs are dense, integer ones one-hot indices
    itemsize = {"float64": 8, "float32": 4}.get(train.dtype or "", 8 if device == "cpu" else 4)
    slots = 2 if train.optimizer == "adam" else (1 if train.momentum else 0)
    shapes = StepShapes(
        seeds,
        int(config.width),
        int(task.n_blocks),
        int(task.block_size),
        int(task.n_classes),
        degree,
        dense,
        batch,
        points,
        itemsize,
        slots,
    )
    chunk = train.chunk_size
    if free is None and device != "cpu" and chunk is None:
        chunk = MIN_CHUNK  # the trainer shrinks its chunks to the free memory: without it, the least it needs
    _, peak = memory_plan(shapes, "loop", device, free, chunk, ignore_memory_check=True)
    evaluations = evaluation_count(int(train.steps), int(train.eval_every))
    cost = CellCost(int(train.steps), shapes.flops_per_step / 2, evaluations, shapes.flops_per_evaluation / 2)
    seconds = None if speed is None else speed.seconds(cost)
    per_update = None if speed is None else speed.step_seconds(cost)
    per_evaluation = None if speed is None else speed.eval_seconds(cost)
    note = (
        f"{train.steps} steps x {shapes.flops_per_step / 2e9:.3g} G multiply-adds and {evaluations} evaluations x "
        f"{shapes.flops_per_evaluation / 2e9:.3g} G (trainer step shapes, loop strategy"
        + ("; memory: the least it needs, with the smallest chunk" if chunk == MIN_CHUNK and free is None else "")
        + ")"
    )
    basis = "trainer cost model" if seconds is not None else "unknown"
    return Estimate(
        seconds, int(peak), basis, note, per_update=per_update, per_evaluation=per_evaluation, evaluations=evaluations
    )


def _probe_polynomial(rows: list[PlanRow], found: list[tuple[Estimate, int, Any, Any]], device: str) -> None:
    """Scale the polynomial-network rows ``found`` (the model's estimate, row index, claim, config) by two probes of
    the real trainer, once per process each:

    - its updates by the planner of the claim with the cheapest modelled update
      (:func:`verify.train.polynomial.estimate_run`: the data and ensemble built, one chunk of each candidate strategy
      timed, as :func:`verify.train.polynomial.train` would) against that update's model (the calibration's products
      run faster than the trainer's kernels: under load the A5 run's planner measured 13 G multiply-adds/s where the
      calibration said 37);
    - its evaluations by :func:`verify.train.polynomial.probe_evaluation` of the claim whose modelled evaluations
      take longest (Shi Fig. 4.1/4.2 at k = 5: half of the model's run; 40% at k = 4, 11% at k = 3, and under 1% for
      the claims of the whole dataset) against that evaluation's model (multiply-adds only: the gather, the powers
      and the cross entropy read memory and are not counted; at k = 5 an evaluation took 8.9 times its model on
      the idle 2-core machine, where an update took 2.1 times its own: docs/training.md).

    Each ratio multiplies its part of every row's time (``steps`` x ``per_update``, ``evaluations`` x
    ``per_evaluation``); a part stays as modelled where its probe does not fit the memory or gives no time."""
    if not found:
        return
    import torch

    from verify.runtime.memory import InsufficientMemoryError
    from verify.runtime.options import RunOptions
    from verify.train.polynomial import estimate_run, probe_evaluation

    options = RunOptions(device=device)
    est, _, claim, config = min(found, key=lambda f: f[0].per_update or math.inf)
    update_key = ("polynomial", claim.id, device)
    if update_key not in _PROBED:
        task, degree = _polynomial_task(config) or (None, 0)
        try:
            step = estimate_run(task, degree, int(config.width), config.train, options, probe=True)
        except InsufficientMemoryError:
            _PROBED[update_key] = None
        else:
            _PROBED[update_key] = step.seconds_per_step
    update = (claim.id, _scale(_PROBED[update_key], est.per_update))
    est, _, claim, config = max(found, key=lambda f: f[0].evaluations * (f[0].per_evaluation or 0.0))
    eval_key = ("polynomial evaluation", claim.id, device)
    if eval_key not in _PROBED and est.evaluations and est.per_evaluation:
        task, degree = _polynomial_task(config) or (None, 0)
        try:
            per_point = probe_evaluation(task, degree, int(config.width), config.train, options)
        except (InsufficientMemoryError, torch.cuda.OutOfMemoryError, MemoryError):
            _PROBED[eval_key] = None
        else:
            _PROBED[eval_key] = per_point * int(task.n_points)
    evaluation = (claim.id, _scale(_PROBED.get(eval_key), est.per_evaluation))
    for est, i, _, config in found:
        row = rows[i]
        if row.seconds is None or est.per_update is None:
            continue
        updates = int(config.train.steps) * est.per_update
        evaluations = est.evaluations * (est.per_evaluation or 0.0)
        note = row.note + _probe_text(*update, "an update", "updates")
        if evaluations > 0:
            note += _probe_text(*evaluation, "an evaluation", "evaluations")
        rows[i] = replace(row, seconds=updates * _ratio(update[1]) + evaluations * _ratio(evaluation[1]), note=note)


def _scale(probed: float | None, model: float | None) -> StepScale | None:
    """A probe's seconds against the model's (:class:`verify.sweep.cost.StepScale`); None without both."""
    from verify.sweep.cost import StepScale

    return StepScale(model, probed) if probed and probed > 0 and model and model > 0 else None


def _ratio(scale: StepScale | None) -> float:
    return 1.0 if scale is None else scale.ratio


def _probe_text(claim: str, scale: StepScale | None, one: str, every: str) -> str:
    """A plan note's words for a probe of the polynomial trainer at ``claim``, e.g. "; the trainer probed now at X:
    717 ms an update against the model's 208 ms (x3.44 on every polynomial-network claim's updates)"; "" without
    one."""
    if scale is None:
        return ""
    return (
        f"; the trainer probed now at {claim}: {format_step(scale.probed_s)} {one} against the model's "
        f"{format_step(scale.model_s)} (x{scale.ratio:.3g} on every polynomial-network claim's {every})"
    )


def _trainer_configs(config: Any, depth: int = 2) -> list[Any]:
    """The trainer configurations inside a claim's configuration (its dataclass fields and their tuples, ``depth``
    levels down) whose trainer counts or times its step: the Markov transformer, the modular (sum) transformer, the
    ReLU modular network, Edelman Ch. 4's streaming parity and full-batch AND transformers, the Ch. 8 minimal model
    and Karp Ch. 3's SGD (both timed by a probe); the claim config itself when it is one. A configuration with a
    ``runs()`` method (Edelman Fig. 4.4: one run per context length; Karp Thm 3.1: one per k and seed) trains those
    runs."""
    import dataclasses

    from verify.train.local_signal import SignalTrainConfig
    from verify.train.markov import MinimalModelConfig, TransformerConfig
    from verify.train.modular_relu import ReluModularConfig
    from verify.train.modular_transformer import SumTransformerConfig
    from verify.train.sparse_variable import AndRunConfig, ParityRunConfig

    kinds = (
        TransformerConfig,
        SumTransformerConfig,
        ReluModularConfig,
        ParityRunConfig,
        AndRunConfig,
        MinimalModelConfig,
        SignalTrainConfig,
    )
    if isinstance(config, kinds):
        return [config]
    if depth == 0:
        return []
    if callable(getattr(config, "runs", None)):
        return [c for run in config.runs() for c in _trainer_configs(run, 0)]
    found: list[Any] = []
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        for f in dataclasses.fields(config):
            found += _trainer_configs(getattr(config, f.name), depth - 1)
    elif isinstance(config, tuple):
        for item in config:
            found += _trainer_configs(item, depth - 1)
    return found


def _claim_runs(claim: Any, configs: list[Any]) -> list[Any]:
    """The trainer runs a claim makes of ``configs``: Shi Fig. 4.3's negative control trains with shuffled labels,
    its ablation trains each LayerNorm/residual variant (:data:`verify.claims.modular_transformer.heads.VARIANTS`);
    every other claim trains each configuration once."""
    from verify.claims.modular_transformer import heads

    observe = getattr(claim, "observe", None)
    if observe is heads.observe_control:
        return [c.replace(shuffle_labels=True) for c in configs]
    if observe is heads.observe_ablation:
        return [c.replace(layer_norm=ln, residual=res) for c in configs for ln, res in heads.VARIANTS]
    return configs


def _run_cost(run: Any) -> tuple[Any, int, str]:
    """(:class:`verify.sweep.cost.CellCost`, peak bytes, words) of one trainer run, from the trainer's own shapes
    (:func:`verify.train.attention.step_multiply_adds` and ``memory_estimate``,
    :func:`verify.train.modular_relu.step_multiply_adds` and ``memory_estimate``). Evaluations are counted for the
    AND transformer (Edelman Fig. 4.3: a forward pass on ``n_val`` validation and ``m`` training points every
    ``eval_every`` steps, more work than its training) and the Markov transformer (a float64 forward pass on its
    ``eval_n`` test chains and one with the attention maps on :data:`verify.train.markov.MASS_CHAINS` of them at every
    evaluation: a fifth of a full-scale run); the others evaluate rarely. The Markov transformer's peak is the larger
    of a training step's and an evaluation's (:func:`verify.train.markov.evaluation_memory`: its attention maps are
    most of the trigram claim's)."""
    from verify.runtime.loop import evaluation_count
    from verify.sweep.cost import CellCost
    from verify.train import attention, modular_relu, sparse_variable
    from verify.train.markov import MASS_CHAINS, TransformerConfig, evaluation_memory

    if isinstance(run, modular_relu.ReluModularConfig):
        what = f"ReLU mod-{run.p} width {run.width}"
        return CellCost(run.steps, modular_relu.step_multiply_adds(run)), modular_relu.memory_estimate(run, 4), what
    itemsize = 8 if run.dtype == "float64" else 4
    if isinstance(run, TransformerConfig):  # next-token training on chains of length t
        model, batch, length, what = run.model, run.batch, run.t, f"Markov transformer k={run.k} t={run.t}"
    elif isinstance(run, sparse_variable.ParityRunConfig):  # fresh batches of T bits and [CLS]
        model, batch, length = sparse_variable.attention_config(run.T, run.model), run.batch, run.T + 1
        what = f"parity transformer T={run.T}"
    elif isinstance(run, sparse_variable.AndRunConfig):  # full batch of m points; evaluations counted below
        model, batch, length = sparse_variable.attention_config(run.T, run.model), run.m, run.T + 1
        what = f"AND transformer T={run.T} m={run.m}, {run.steps // run.eval_every + 1} evaluations"
    else:  # SumTransformerConfig: k operands and "=", a batch per seed or the whole training half
        model, length = run.attention_config(), run.k + 1
        what = (
            f"sum transformer p={run.p} k={run.k}, all positions counted: an upper bound, the last layer trains on '='"
        )
        batch = run.batch_size or max(1, int(run.train_fraction * run.p**run.k))
    seeds = len(run.seeds)
    madds = attention.step_multiply_adds(model, seeds, batch, length)
    work, need = CellCost(run.steps, madds), attention.memory_estimate(model, seeds, batch, length, itemsize)
    if isinstance(run, sparse_variable.AndRunConfig):  # a forward pass (a third of a step) on n_val + m points
        evals = run.steps // run.eval_every + 1
        work = CellCost(
            run.steps, madds, evals, attention.step_multiply_adds(model, seeds, run.n_val + run.m, length) / 3
        )
    if isinstance(run, TransformerConfig):  # forward passes on eval_n test chains and on the attention chains
        chains = run.eval_n + min(MASS_CHAINS, run.eval_n)
        evals = evaluation_count(run.steps, run.eval_every)
        work = CellCost(run.steps, madds, evals, attention.step_multiply_adds(model, seeds, chains, length) / 3)
        what += f", {evals} evaluations on {run.eval_n} test chains"
        need = max(need, evaluation_memory(run))
    return work, need, what


def _shapes_estimate(claim: Any, config: Any, device: str, speed: Any) -> Estimate | None:
    """Training claims whose trainer counts its step (:func:`_trainer_configs`): every run's steps x multiply-adds
    per step at the calibrated rate, summed over the claim's runs (:func:`_claim_runs`); peak memory is the largest
    run's trainer estimate (runs are sequential). Evaluations (but Edelman Fig. 4.3's, :func:`_run_cost`), early stops (``stop_*``: the step budget is an upper
    bound) and the claim's own Monte-Carlo work are not counted; a run shared with other claims (one run serves
    several claims in a report) is counted for each claim, and the plan marks it (:func:`_mark_shared`)."""
    from verify.train.local_signal import SignalTrainConfig
    from verify.train.markov import MinimalModelConfig

    runs = _claim_runs(claim, _trainer_configs(config))
    if not runs:
        return None
    if any(isinstance(r, SignalTrainConfig) for r in runs):
        return _signal_estimate(config, runs, device, speed)
    probed = [r for r in runs if isinstance(r, MinimalModelConfig)]
    if probed:  # the minimal model's step is not its multiply-adds: timed, at the full shapes
        if speed is None or len(probed) != len(runs):
            return None
        each = [_probe_minimal(r, device) for r in probed]
        per_run = tuple((r, float(r.steps * s)) for r, s in zip(probed, each))
        seconds = float(sum(s for _, s in per_run))
        parts = [f"{r.steps} steps x {s * 1e3:.3g} ms (minimal model k={r.k} t={r.t})" for r, s in zip(probed, each)]
        note = f"{len(runs)} run(s): {'; '.join(parts)}; timed over {PROBE_STEPS} updates after a warm-up, now, under "
        note += "this machine's current load; evaluations not counted"
        return Estimate(seconds, None, "probe", note, per_run)
    costs = [_run_cost(r) for r in runs]
    scales = _trainer_scales(runs, costs, device, speed)
    ratios = [scales[type(r).__name__].ratio if type(r).__name__ in scales else 1.0 for r in runs]
    eval_scales = _trainer_scales(runs, costs, device, speed, "evaluation")
    eval_ratios = [eval_scales[type(r).__name__].ratio if type(r).__name__ in eval_scales else 1.0 for r in runs]
    seconds, per_run = None, ()
    if speed is not None:
        each = [float(speed.seconds(c, x, e)) for (c, _, _), x, e in zip(costs, ratios, eval_ratios)]
        seconds, per_run = float(sum(each)), tuple(zip(runs, each))
    memory = max(m for _, m, _ in costs)
    parts = [f"{c.steps} steps x {c.step_flops / 1e9:.3g} G multiply-adds ({w})" for c, _, w in costs]
    shown = "; ".join(parts[:2]) + (f"; +{len(parts) - 2} more runs" if len(parts) > 2 else "")
    note = f"{len(runs)} run(s): {shown}; trainer step shapes, evaluations not counted unless stated"
    for kind, scale in scales.items():
        words = _STEP_PROBES[kind][0]
        note += (
            f"; a {words} update probed now at {scale.probed_s * 1e3:.3g} ms against the model's "
            f"{scale.model_s * 1e3:.3g} ms (x{scale.ratio:.3g} on every {words} run's updates)"
        )
    for kind, scale in eval_scales.items():
        words = _STEP_PROBES[kind][0]
        note += (
            f"; a {words} evaluation probed now at {scale.probed_s:.3g} s against the model's "
            f"{scale.model_s:.3g} s (x{scale.ratio:.3g} on every {words} run's evaluations)"
        )
    basis = "trainer cost model" if seconds is not None else "unknown"
    return Estimate(seconds, int(memory), basis, note, per_run)


#: Trainers whose multiply-adds model :func:`_shapes_estimate` scales by a probe of the real trainer, once per plan:
#: configuration type name -> (words, probe module, update probe, evaluation probe or None). The others (Shi Figs
#: 4.3/4.4's sum transformer, Edelman Ch. 4's parity and AND transformers) are planned at days or more and stay the
#: model alone. A Markov transformer evaluation (float64, the attention maps of 256 chains) is a fifth of a full-scale
#: run and runs far below the calibrated rate; the ReLU network evaluates rarely.
_STEP_PROBES: dict[str, tuple[str, str, str, str | None]] = {
    "TransformerConfig": (
        "Markov transformer",
        "verify.train.markov",
        "probe_transformer_step",
        "probe_transformer_eval",
    ),
    "ReluModularConfig": ("ReLU modular network", "verify.train.modular_relu", "probe_relu_step", None),
}


def _trainer_scales(runs: list[Any], costs: list[Any], device: str, speed: Any, part: str = "update") -> dict[str, Any]:
    """Per trainer of :data:`_STEP_PROBES` among ``runs``, its probe against its multiply-adds model as a
    :class:`verify.sweep.cost.StepScale`, for its updates (``part="update"``) or its evaluations
    (``"evaluation"``, the trainers with an evaluation probe): the first run of that trainer a plan meets is timed
    (once per process; an update over about 10 updates of the real trainer at its shapes,
    :func:`verify.runtime.memory.update_seconds`; an evaluation on a few test chains, scaled to its own), and the
    ratio scales that part of every run of that trainer (the model counts the products; a trainer's step also draws
    its data and launches many small kernels: a Markov transformer step at full scale measured 3.5-6.2 times the
    model, a ReLU modular step 2.7 times, under load; a Markov transformer evaluation runs in float64 and forms the
    attention maps). A trainer without a calibration or a positive probe is left out."""
    import importlib

    from verify.sweep.cost import StepScale

    if speed is None:
        return {}
    scales: dict[str, Any] = {}
    for run, (cost, _, _) in zip(runs, costs):
        kind = type(run).__name__
        probes = _STEP_PROBES.get(kind)
        name = None if probes is None else probes[2] if part == "update" else probes[3]
        if name is None or (part == "evaluation" and not cost.evals):
            continue
        key = (kind, device) if part == "update" else (kind, device, part)
        if key not in _PROBED:  # the first run of this trainer in the process
            model = speed.step_seconds(cost) if part == "update" else speed.eval_seconds(cost)
            _PROBED[key] = (getattr(importlib.import_module(probes[1]), name)(run, device), model)
        probed, model = _PROBED[key]
        if probed > 0:
            scales[kind] = StepScale(model, probed)
    return scales


def _signal_estimate(config: Any, runs: list[Any], device: str, speed: Any) -> Estimate | None:
    """Karp Ch. 3's SGD runs (:class:`verify.train.local_signal.SignalTrainConfig`): each run's updates and
    evaluations timed by the real trainer at its shapes (:func:`verify.train.local_signal.probe_signal_step`, which
    times each probed shape once in a process: the runs of one k share theirs), summed over the claim's runs; peak memory is the largest
    run's ``memory_estimate`` (runs are sequential). The claim's own non-training work (Fig. 3.3's CNTK reference
    line) is not counted."""
    from verify.train.local_signal import SignalTrainConfig, memory_estimate, probe_signal_step

    if speed is None or not all(isinstance(r, SignalTrainConfig) for r in runs):
        return None  # no device to time on, or a mix with another trainer: no honest number
    probes = [probe_signal_step(r, device) for r in runs]  # timed once per probed shape in the process
    if any(p is None for p in probes):
        return None
    each = [float(p.seconds(r)) for r, p in zip(runs, probes) if p is not None]
    seconds = float(sum(each))
    memory = max(memory_estimate(r, 4 if r.dtype == "float32" else 8) for r in runs)
    shapes: dict[tuple[Any, ...], int] = {}
    for r in runs:
        key = (r.simulator, r.k, len(r.seeds), r.batch, r.steps)
        shapes[key] = shapes.get(key, 0) + 1
    parts = [
        f"{count} x {steps} steps ({sim}, k={k}, {seeds} seed(s), batch {batch})"
        for (sim, k, seeds, batch, steps), count in shapes.items()
    ]
    scaled = any(p is not None and (p.probe_seeds, p.probe_k) != (len(r.seeds), r.k) for r, p in zip(runs, probes))
    note = (
        f"{len(runs)} run(s): {'; '.join(parts[:3])}"
        + (f"; +{len(parts) - 3} more shapes" if len(parts) > 3 else "")
        + "; updates and evaluations timed by the real trainer at each shape, now, under this machine's current load"
        + (" (on fewer seeds or noise rows, scaled linearly)" if scaled else "")
        + ("; the CNTK reference line not counted" if getattr(config, "kernel", None) else "")
    )
    return Estimate(seconds, int(memory), "probe", note, tuple(zip(runs, each)))


def _lsa_estimate(claim: Any, config: Any, device: str, speed: Any) -> Estimate | None:
    """Shi Thm 5.4.1's training claims (``LSATrainingConfig``): a probe of the real trainer
    (:func:`verify.train.lsa.train_population` or :func:`verify.train.lsa.train_sgd`, as the claim builds them) at
    the largest rank, its full seeds and batch: after a one-update warm-up run, ``a`` and ``3 a`` updates timed (the
    fastest of three runs each; ``a`` times 4 while the difference is not positive, :data:`PROBE_ATTEMPTS` tries),
    their difference over ``2 a`` the seconds per update, times the steps of every rank (the rank only sizes the
    ``(d+1) x r`` factors, so the largest is an upper bound for the others). The covariance is Lambda as given
    (rotation and ``train_Lam`` change no shape); the population run's L-BFGS polish is not counted."""
    import numpy as np

    from verify.runtime.memory import wall_seconds
    from verify.runtime.options import RunOptions
    from verify.train import lsa

    if type(config).__name__ != "LSATrainingConfig" or speed is None:
        return None
    r, L = max(config.ranks), np.array(config.Lam, dtype=np.float64)
    opts = RunOptions(device="cpu" if config.model == "population" else device)  # the claim trains it on the CPU
    if config.model == "population":
        run = lsa.PopulationConfig(L, config.N, r, config.seeds, polish_steps=0)
        train: Callable[[int], Any] = lambda n: lsa.train_population(replace(run, steps=n), opts)  # noqa: E731
        a = 50  # a step is about a millisecond: enough updates for the difference to stand above the noise
    else:
        sgd = lsa.SGDConfig(L, config.N, r, config.seeds, model=config.model, batch=config.batch, dtype=None)
        train = lambda n: lsa.train_sgd(replace(sgd, steps=n), opts)  # noqa: E731
        a = PROBE_STEPS
    key = (replace(run if config.model == "population" else sgd, steps=0), device)
    if key not in _PROBED:
        train(1)  # a warm-up: the first run pays one-time set-up costs

        def timed(n: int) -> float:
            return wall_seconds(lambda: train(n))

        # the fastest of three runs of a and of 3a updates (a load spike only slows a run down); where the
        # difference is lost in the machine's noise, again with 4 times as many updates (at most 3 times)
        for _ in range(PROBE_ATTEMPTS):
            short, long = (min(timed(n) for _ in range(3)) for n in (a, 3 * a))
            if long > short:
                break
            a *= 4
        _PROBED[key] = (long - short) / (2 * a)
    per_step = _PROBED[key]
    if not per_step > 0:
        return None  # the machine's noise exceeded the probe's difference: no honest number
    seconds = per_step * config.steps * len(config.ranks)
    note = (
        f"{len(config.ranks)} rank(s) x {config.steps} steps x {per_step * 1e3:.3g} ms (LSA {config.model}, rank {r} "
        f"probed: runs of a and 3a updates timed, now, under this machine's current load"
        + ("; L-BFGS polish not counted)" if config.model == "population" and config.polish_steps else ")")
    )
    return Estimate(seconds, None, "probe", note)


#: Updates a probe times (after one warm-up update): :func:`verify.train.markov.probe_minimal_step`.
PROBE_STEPS = 2
#: Tries of the LSA probe (:func:`_lsa_estimate`), each with 4 times the updates of the last, while the difference
#: between the runs of a and 3a updates is not positive (the machine's noise).
PROBE_ATTEMPTS = 3
_PROBED: dict[
    tuple[Any, str], Any
] = {}  # seconds per update (a SignalProbe for Karp Ch. 3) by (shape, device), once per process


def _probe_minimal(cfg: Any, device: str) -> float:
    """Seconds per update of the minimal model at ``cfg``'s shapes, probed once per shape and device in a process
    (the three minimal-model claims share theirs; the step budget and evaluations do not change the step)."""
    from verify.train.markov import probe_minimal_step

    key = (replace(cfg, steps=0, eval_every=1, eval_n=1), device)
    if key not in _PROBED:
        _PROBED[key] = probe_minimal_step(cfg, device, PROBE_STEPS)
    return _PROBED[key]


def _device_memory(device: str) -> tuple[int | None, str]:
    """Usable bytes on ``device`` (:data:`MEMORY_SAFETY` of the free memory, as the trainers check it) and words."""
    import torch

    from verify.runtime.memory import free_memory

    if device == "cuda" and not torch.cuda.is_available():
        return None, "cuda: not available here (memory and calibration unknown)"
    free = free_memory(torch.device(device))
    if free is None:
        return None, f"{device}: free memory unknown"
    usable = int(MEMORY_SAFETY * free)
    return usable, f"{device}: {usable / 2**30:.1f} GiB usable ({MEMORY_SAFETY:.0%} of {free / 2**30:.1f} GiB free)"


def make_plan(
    claims: list,
    scale: str,
    device: str,
    *,
    archive: str | Path | None = None,
    out: str | Path | None = None,
    calibrate: bool = True,
) -> tuple[list[PlanRow], dict[str, Any]]:
    """The plan of ``claims`` at ``scale`` on ``device`` ('cpu' or 'cuda'): one :class:`PlanRow` per claim and the
    device facts (usable memory, calibration). Nothing is trained; the calibration times a few small steps."""
    from verify.sweep.cost import calibrate as calibrate_device
    from verify.sweep.grid import grid_read_by

    usable, memory_text = _device_memory(device)
    speed = None
    if calibrate and not (device == "cuda" and usable is None):
        speed = calibrate_device(device)
    archived: list[dict[str, Any]] = []
    if archive:
        from verify.report.archive import ArchiveError, load_archive

        try:
            archived = list(load_archive(archive).values())
        except ArchiveError:
            archived = []
    reported = _report_records(out)
    rows: list[PlanRow] = []
    shares: list[tuple[Any, tuple[tuple[Any, float], ...] | None]] = []  # per row, for _mark_shared
    to_probe: list[tuple[float, int, Any, Any, Any]] = []
    polynomial: list[tuple[Estimate, int, Any, Any]] = []  # (model estimate, row, claim, config)
    for claim in claims:
        config = claim.configs[scale]
        est = _measured(claim, config, device, archived, True) or _measured(claim, config, device, reported, False)
        grid, model = grid_read_by(claim), None
        if grid is not None:
            model = _grid_estimate(claim, grid, config, speed, probe=False)
            if est is None:
                est = model
                if model.seconds is not None:
                    to_probe.append((model.seconds, len(rows), claim, grid, config))
            elif model.memory_bytes is not None:
                est = Estimate(est.seconds, model.memory_bytes, est.basis, est.note)
        if est is None and type(config).__name__ in (
            "ModularTrainingConfig",
            "ParityTrainingConfig",
            "GroupTrainingConfig",
            "PolySplitConfig",
        ):
            est = _polynomial_estimate(
                claim, config, device, speed, None if usable is None else int(usable / MEMORY_SAFETY)
            )
            if est is not None and est.per_update:  # None without a calibration
                polynomial.append((est, len(rows), claim, config))
        if est is None and type(config) in ESTIMATORS:
            est = ESTIMATORS[type(config)](claim, config, device, speed)
        if est is None and claim.kind == "training":
            est = _shapes_estimate(claim, config, device, speed)
        if est is None and claim.kind == "training":
            est = _lsa_estimate(claim, config, device, speed)
        if est is None:
            why = (
                "no estimator: its trainer times itself only once it runs"
                if claim.kind == "training"
                else "no estimator and not yet run at this configuration on this device type"
            )
            if scale != "quick" and claim.configs.get("quick") == config:
                why += "; same configuration as quick: a quick record counts"
            est = Estimate(None, None, "unknown", why)
        fits = None if est.memory_bytes is None or usable is None else est.memory_bytes <= usable
        # the row's whole time at the estimate the probes will give (runs None: a grid's cells, or the one run of a
        # polynomial-network claim, such as Shi Fig. 4.1 and 4.2 at k = 5 share), else the estimate's trainer runs
        whole = (grid is not None and est is model) or est.per_update is not None
        shares.append((work_unit(claim, scale), None if whole else est.runs))
        rows.append(
            PlanRow(claim.id, claim.kind, claim.source, est.seconds, est.memory_bytes, fits, est.basis, est.note)
        )
    _probe_grids(rows, to_probe, speed)
    _probe_polynomial(rows, polynomial, device)
    rows = _mark_shared(rows, shares)
    facts = {
        "usable_memory_bytes": usable,
        "memory": memory_text,
        "calibration": None
        if speed is None
        else {"device": speed.device, "overhead_s": speed.overhead_s, "flops_per_s": speed.flops_per_s},
    }
    return rows, facts


def work_unit(claim: Any, scale: str, grids: bool = True) -> Any:
    """The key of the report's work unit that runs ``claim`` (:func:`verify.report.pool.schedule`): ``("grid", the
    grid's claim id)`` for a claim that runs or reads a grid's cells (with ``grids``: when the grids run in the
    report's worker pool), else :func:`verify.claims.base.shared_unit`."""
    from verify.claims.base import shared_unit
    from verify.sweep.grid import grid_read_by

    grid = grid_read_by(claim) if grids else None
    return ("grid", grid.claim_id) if grid is not None else shared_unit(claim, scale)


def _mark_shared(rows: list[PlanRow], shares: list[tuple[Any, tuple[tuple[Any, float], ...] | None]]) -> list[PlanRow]:
    """``rows`` with each row's :attr:`PlanRow.shared`: ``shares`` gives per row its work unit (:func:`work_unit`;
    None: shares nothing) and its runs with their seconds (None: the
    grid's cells, the row's whole time). The first row of a unit to plan a run pays it; a later row of the unit
    planning the same run lists it as already paid by that row's claim. An unhashable run is never shared."""
    paid: dict[tuple[Any, Any], str] = {}
    out = []
    for row, (unit, runs) in zip(rows, shares):
        if unit is None or row.seconds is None:
            out.append(row)
            continue
        shared: list[tuple[str, float]] = []
        for run, seconds in runs if runs is not None else (("cells", row.seconds),):
            try:
                owner = paid.setdefault((unit, run), row.id)
            except TypeError:
                continue
            if owner != row.id:
                shared.append((owner, seconds))
        out.append(replace(row, shared=tuple(shared)) if shared else row)
    return out


def once_seconds(rows: list[PlanRow]) -> float:
    """The known seconds of ``rows`` together, a run that several of them share counted once: a row's
    :attr:`PlanRow.shared` parts are left out where the claim that pays them is among ``rows``."""
    known = {r.id for r in rows if r.seconds is not None}
    return float(
        sum(r.seconds - sum(s for owner, s in r.shared if owner in known) for r in rows if r.seconds is not None)
    )


def affordable(rows: list[PlanRow], limit_s: float) -> tuple[list[PlanRow], list[tuple[PlanRow, str]]]:
    """Split the plan's ``rows`` for ``tvk report --within``: the claims to run, cheapest first (a known time of at
    most ``limit_s`` seconds and no current record in the archive), and the others, each with why it is left out
    (archived, over the limit, or of unknown cost: an unknown time is never taken as affordable).

    A current archived record is a ``measured`` row read from the archive (:func:`_measured`: same configuration,
    same device type, claim code unchanged)."""
    if not (isinstance(limit_s, (int, float)) and math.isfinite(limit_s) and limit_s > 0):
        raise ValueError(f"the time limit must be a number of seconds > 0, got {limit_s!r}")
    run, left = [], []
    for row in rows:
        if row.basis == "measured" and row.note.startswith("archive"):
            left.append((row, "a current record is archived"))
        elif row.seconds is None:
            left.append((row, "cost unknown"))
        elif row.seconds > limit_s:
            left.append((row, f"planned {format_seconds(row.seconds)} > {format_seconds(limit_s)}"))
        else:
            run.append(row)
    return sorted(run, key=lambda r: r.seconds or 0.0), left


def totals(rows: list[PlanRow]) -> dict[str, Any]:
    """Counts and sums of the plan (unknown times are counted, never added): ``seconds_known_total`` adds every
    claim's time, ``seconds_once_total`` counts a run that several claims share once (:func:`once_seconds`)."""
    known = [r.seconds for r in rows if r.seconds is not None]
    return {
        "claims": len(rows),
        "time_known": len(known),
        "time_unknown": len(rows) - len(known),
        "seconds_known_total": float(sum(known)),
        "seconds_once_total": once_seconds(rows),
        "within_2h": sum(1 for s in known if s <= AFFORDABLE_S),
        "over_2h": sum(1 for s in known if s > AFFORDABLE_S),
        "memory_known": sum(1 for r in rows if r.memory_bytes is not None),
        "fits": sum(1 for r in rows if r.fits is True),
        "does_not_fit": sum(1 for r in rows if r.fits is False),
        "fit_unknown": sum(1 for r in rows if r.fits is None),
    }


def plan_document(rows: list[PlanRow], facts: dict[str, Any], scale: str, device: str) -> dict[str, Any]:
    """The ``--plan --json`` object (schema in docs/running_at_scale.md, "The plan")."""

    def clean(row: PlanRow) -> dict[str, Any]:
        d = asdict(row)
        if d["seconds"] is not None and not math.isfinite(d["seconds"]):
            d["seconds"] = None
        return d

    return {
        "schema": PLAN_SCHEMA,
        "scale": scale,
        "device": device,
        **facts,
        "claims": [clean(r) for r in rows],
        "totals": totals(rows),
    }


def _duration(s: float) -> str:
    """:func:`verify.runtime.memory.format_seconds`, in years from a year on."""
    year = 365.25 * 86400
    return f"{s / year:.3g} years" if s >= year else format_seconds(s)


def _bytes(n: int | None) -> str:
    """``n`` bytes in the largest binary unit it fills, KiB to TiB, from 1000 GiB on in TiB: at most 10 characters
    (the table's memory column) below 1000 TiB; a full-scale grid cell plans 1.4 TiB."""
    if n is None:
        return "unknown"
    if n < 2**20:
        return f"{n / 2**10:.0f} KiB"
    if n < 2**30:
        return f"{n / 2**20:.0f} MiB"
    if n < 1000 * 2**30:
        return f"{n / 2**30:.2f} GiB"
    return f"{n / 2**40:.2f} TiB"


def format_plan(rows: list[PlanRow], facts: dict[str, Any], scale: str, device: str) -> str:
    """The human plan: one line per claim (time, peak memory, fits, basis), then the totals."""
    width = max([len(r.id) for r in rows] + [5])
    lines = [
        f"plan for --scale {scale} on {device} (nothing has run); {facts['memory']}",
        f"{'claim':<{width}}  {'kind':<9} {'time':>10} {'memory':>10} {'fits':>7}  basis",
    ]
    for r in rows:
        t = "unknown" if r.seconds is None else _duration(r.seconds)
        fits = {True: "yes", False: "NO", None: "unknown"}[r.fits]
        lines.append(
            f"{r.id:<{width}}  {r.kind:<9} {t:>10} {_bytes(r.memory_bytes):>10} {fits:>7}  {r.basis}"
            + (f" ({r.note})" if r.note else "")
        )
    tot = totals(rows)
    once = tot["seconds_once_total"]
    shared = (
        f", ~{_duration(once)} with the runs claims share counted once" if once < tot["seconds_known_total"] else ""
    )
    lines.append(
        f"total: {tot['claims']} claims; time known for {tot['time_known']} (~{_duration(tot['seconds_known_total'])}"
        f" together{shared}, {tot['within_2h']} at or below 2 h, {tot['over_2h']} above), unknown for {tot['time_unknown']}; "
        f"memory known for {tot['memory_known']} ({tot['does_not_fit']} do not fit, fit unknown for "
        f"{tot['fit_unknown']})"
    )
    return "\n".join(lines)
