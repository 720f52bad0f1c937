"""Sweeps checked by what their docstrings promise, each against a small hand-built case whose answer follows from
the docstring (added by a mutation-testing pass over verify/sweep: each test here failed on a changed line of the
code that the older tests let through). The toy grid is tests/verify/sweep_toy.py."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import sqlite3

import numpy as np
import pytest

from verify.claims import RunContext
from verify.runtime.options import RunOptions
from verify.sweep import (
    Cell,
    Executor,
    ResultStore,
    decode,
    encode,
    executors,
    grid_of,
    grid_read_by,
    merge_stores,
    sweep_session,
)
from verify.sweep import confirm as confirm_module
from verify.sweep import cost as cost_module
from verify.sweep import store as store_module
from verify.sweep.cli import cmd_merge
from verify.sweep.cost import CellCost, DeviceSpeed, StepScale, estimate_grid, probe_scale
from verify.sweep.session import SweepOptions
from verify.sweep.store import CellEntry, NotAStoreError, check_store

from .sweep_toy import TOY_GRID, TOY_ID, ToyConfig, toy_claim

CTX = RunContext(options=RunOptions(progress=False, device="cpu"))
REV = "test-revision"


def _entry(config_hash: str, seeds=(0,), result: str = "1", runtime_s: float = 1.0, claim: str = "claim") -> CellEntry:
    return CellEntry(
        claim, config_hash, seeds, REV, label=config_hash, stage=0, config="{}", result=result,
        runtime_s=runtime_s, host="h", executor="local",
    )  # fmt: skip


# ------------------------------------------------------------------ cells


def test_numpy_scalars_keep_their_type_through_the_store_encoding() -> None:
    """``encode`` keeps numpy scalars' dtype (module docstring: a result computed elsewhere is the same value)."""
    value = {"f32": np.float32(0.1), "i64": np.int64(-3), "b": np.bool_(True), "in_list": [np.float16(2.5)]}
    back = decode(encode(value))
    for key in ("f32", "i64", "b"):
        assert type(back[key]) is type(value[key]) and back[key] == value[key]
    assert type(back["in_list"][0]) is np.float16 and back["in_list"][0] == value["in_list"][0]


@pytest.mark.parametrize("seeds", [(), (1, 1), (0, 2, 0)])
def test_a_cell_needs_distinct_seeds(seeds) -> None:
    """A cell's seeds are a non-empty tuple of distinct integers (a repeated seed would be trained twice)."""
    with pytest.raises(ValueError, match="distinct integers"):
        Cell("c", {}, seeds)


def test_two_identical_cells_in_one_stage_are_refused() -> None:
    """A stage with two cells of the same configuration and seeds has one store key for both: refused by name."""
    with sweep_session("local", revision=REV), pytest.raises(ValueError, match="same configuration and seeds"):
        TOY_GRID.observe(ToyConfig(values=(1, 2, 1)), CTX)


class _Observer:
    """An object whose bound method observes a claim (not a grid)."""

    def observe(self, config, ctx):  # pragma: no cover - never run
        raise AssertionError


def test_only_a_grid_makes_a_grid_claim() -> None:
    """``grid_of``: the grid behind ``Claim(observe=grid.observe)``; None for a claim observed by a bound method of
    anything else. ``grid_read_by``: a grid claim's own grid, too."""
    claim = toy_claim(ToyConfig(values=(1,)))
    assert grid_of(claim) is TOY_GRID and grid_read_by(claim) is TOY_GRID
    other = dataclasses.replace(claim, observe=_Observer().observe)
    assert grid_of(other) is None and grid_read_by(other) is None


# ------------------------------------------------------------------ the store


def test_a_store_of_another_schema_version_is_refused(tmp_path) -> None:
    """``check_store`` refuses a store of another schema, whether read (status) or opened for writing."""
    path = tmp_path / "s.sqlite"
    with ResultStore(path):
        pass
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    db.close()
    with pytest.raises(NotAStoreError, match="schema 0"):
        check_store(path)
    with pytest.raises(NotAStoreError, match="schema 0"):
        ResultStore(path)


def test_merge_keeps_the_cell_already_in_the_target(tmp_path) -> None:
    """``merge_stores``: a cell already in the target is kept (first write wins, as in ``put``); new cells come in."""
    target, source = tmp_path / "target.sqlite", tmp_path / "source.sqlite"
    with ResultStore(target) as t:
        t.put(_entry("h1", result='"target"'))
    with ResultStore(source) as s:
        s.put(_entry("h1", result='"source"'))
        s.put(_entry("h2", result='"new"'))
    counts = merge_stores(target, [source])
    assert (counts["cells_added"], counts["cells"]) == (1, 2)
    with ResultStore(target) as t:
        got = t.get("claim", [("h1", (0,)), ("h2", (0,))], REV)
    assert got[("h1", "0")].result == '"target"' and got[("h2", "0")].result == '"new"'


class _Clock:
    """``store.time`` for a test: ``time()`` returns what the test set."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now


def test_the_eta_is_the_latest_runs_rate_else_the_mean_runtime(monkeypatch) -> None:
    """``ResultStore.status``: the ETA divides the cells to go by the latest run's rate (cells it finished since it
    started, over the time to its last cell); before that run finishes one, the cells to go times the stored cells'
    mean runtime; 0 when nothing is left, also for a plan without cells."""
    clock = _Clock()
    monkeypatch.setattr(store_module, "time", clock)
    keys = [(f"h{i}", (0,)) for i in range(10)]
    with ResultStore(":memory:") as store:
        clock.now = 100.0
        store.record_plan("claim", "quick", REV, [keys])  # an earlier run: two cells of 3 and 5 s
        for i, (t, runtime) in enumerate([(110.0, 3.0), (150.0, 5.0)]):
            clock.now = t
            store.put(_entry(f"h{i}", runtime_s=runtime))
        clock.now = 1000.0
        store.record_plan("claim", "quick", REV, [keys])  # the rerun starts: 8 to go, none of its own yet
        (plan,) = store.status()
        assert (plan.done, plan.total, plan.runtime_s) == (2, 10, 8.0) and plan.eta_s == pytest.approx(8 * 4.0)
        for i, t in zip(range(2, 6), (1010.0, 1020.0, 1030.0, 1040.0)):  # the rerun: 4 cells in 40 s
            clock.now = t
            store.put(_entry(f"h{i}", runtime_s=1.0))
        (plan,) = store.status()
        assert (plan.done, plan.last_finished) == (6, 1040.0) and plan.eta_s == pytest.approx(4 * 40.0 / 4)
        store.record_plan("other", "quick", REV, [[]])
        assert [p.eta_s for p in store.status() if p.claim_id == "other"] == [0.0]


def test_a_finished_grid_with_a_followup_is_done_in_status(tmp_path) -> None:
    """After a complete run, ``tvk sweep status`` counts every cell of every stage as done (the follow-up stage's
    worst-case keys replaced by its actual ones), and each stored row carries its stage."""
    path = tmp_path / "s.sqlite"
    with sweep_session("local", store=path, revision=REV):
        TOY_GRID.observe(ToyConfig(values=(1, 2, 3), followup=True), CTX)
    with ResultStore(path) as store:
        (plan,) = store.status()
        stages = {r["label"]: r["stage"] for r in store.rows()}
    assert (plan.done, plan.total, plan.eta_s) == (4, 4, 0.0)
    assert stages == {"value 1": 0, "value 2": 0, "value 3": 0, "followup": 1}


def test_a_cell_stores_the_seconds_it_ran(tmp_path) -> None:
    """The stored ``runtime_s`` is the time the cell's run took (the toy cell sleeps 0.05 s)."""
    path = tmp_path / "s.sqlite"
    with sweep_session("local", store=path, revision=REV):
        TOY_GRID.observe(ToyConfig(values=(1,), sleep=0.05), CTX)
    with ResultStore(path) as store:
        (row,) = store.rows()
    assert 0.05 <= row["runtime_s"] < 5


def test_merge_into_a_new_report_directory_makes_its_store(tmp_path, capsys) -> None:
    """``tvk sweep merge DIR ...`` with a DIR that does not exist yet (a name without .sqlite) makes
    ``DIR/sweep.sqlite``, where ``tvk report --out DIR`` looks for it."""
    source = tmp_path / "shard.sqlite"
    with ResultStore(source) as s:
        s.put(_entry("h1"))
    assert cmd_merge(argparse.Namespace(target=str(tmp_path / "rep"), sources=[str(source)], json=True)) == 0
    check_store(tmp_path / "rep" / "sweep.sqlite")
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["sweep.sqlite"]


# ------------------------------------------------------------------ the cost estimate


SPEED = DeviceSpeed("cpu", overhead_s=0.0, flops_per_s=1e3)  # a toy cell of `steps` updates takes `steps` seconds


def test_the_estimate_counts_only_this_shards_cells_not_in_the_store(tmp_path) -> None:
    """``estimate_grid`` in a session: every planned cell enters the median, only those of this job's shard that
    are not stored enter what is still to run."""
    cfg = ToyConfig(values=(1, 2, 3, 4, 5, 6), steps=7)
    cells = TOY_GRID.plan(cfg)[0]
    with sweep_session("local", store=tmp_path / "s.sqlite", shard="1/2", revision=REV) as sess:
        stored = cells[3]  # in the shard (indices 1, 3, 5)
        sess.store.put(_entry(TOY_GRID.key(stored), stored.seeds, claim=TOY_ID))
        est = estimate_grid(TOY_GRID, cfg, SPEED, sess)
    assert (est.cells, est.pending) == (6, 2) and est.pending_s == pytest.approx(2 * 7.0)
    assert est.median_cell_s == pytest.approx(7.0) and est.probe is None


def test_the_probe_times_the_median_cell_and_scales_by_probed_over_model(monkeypatch) -> None:
    """``probe_scale`` probes the median cell by the model's time, and ``StepScale.ratio`` is probed / model; a cell
    whose modelled update exceeds ``PROBE_MAX_MODEL_STEP_S`` is not probed."""
    probed: list = []

    def probe(config, device, seconds=None):
        probed.append(config)
        return 3 * config["flops"] / SPEED.flops_per_s  # the real update is 3 times the model's

    monkeypatch.setattr(cost_module, "probe_cell_step", probe)
    cells = [Cell(str(f), {"flops": f}, (0,)) for f in (0.01, 0.04, 0.002, 0.03, 0.001)]

    def cost(cell):
        return CellCost(steps=1, step_flops=cell.config["flops"])

    scale = probe_scale(cells, cost, SPEED)
    assert probed == [{"flops": 0.01}]  # the third of 0.001, 0.002, 0.01, 0.03, 0.04
    assert isinstance(scale, StepScale) and scale.ratio == pytest.approx(3.0)
    slow = [Cell("slow", {"flops": 1000 * cost_module.PROBE_MAX_MODEL_STEP_S * 2}, (0,))]
    assert probe_scale(slow, cost, SPEED) is None and len(probed) == 1


def test_evaluations_are_scaled_by_their_own_ratio() -> None:
    """``DeviceSpeed.seconds``: the updates' time times ``step_scale``, the evaluations' times ``eval_scale``."""
    speed = DeviceSpeed("cpu", overhead_s=1.0, flops_per_s=10.0)
    c = CellCost(steps=4, step_flops=10.0, evals=3, eval_flops=20.0)  # 4 updates of 2 s, 3 evaluations of 3 s
    assert speed.seconds(c) == pytest.approx(8 + 9)
    assert speed.seconds(c, step_scale=2.0, eval_scale=5.0) == pytest.approx(2 * 8 + 5 * 9)


class _Workers(Executor):
    """An executor of ``n`` workers that must not run anything (the cost gate comes first)."""

    name = "fake"

    def __init__(self, n: int) -> None:
        self.n = n

    def workers(self) -> int:
        return self.n

    def run_cells(self, run, cells, ctx, on_result) -> None:
        raise AssertionError("the cost gate ran cells")


@pytest.mark.parametrize(
    "steps, n_cells, workers, confirm, refused",
    [
        (1000, 4, 4, False, False),  # 4000 s of device time, 1000 s of wall time on 4 workers
        (3599, 1, 1, False, False),  # just under an hour
        (3601, 1, 1, False, True),  # just above
        (3601, 1, 1, True, False),  # ... confirmed
    ],
)
def test_the_cost_gate_refuses_only_an_unconfirmed_wall_time_above_an_hour(
    monkeypatch, steps, n_cells, workers, confirm, refused
) -> None:
    """``confirm_cost`` at --scale full: an estimated wall time (device time over the executor's workers) above an
    hour needs ``confirm``; below it, or confirmed, the estimates are returned (a toy cell of ``steps`` updates is
    estimated at ``steps`` seconds here)."""
    monkeypatch.setattr(confirm_module, "calibrate", lambda device: SPEED)
    claim = toy_claim(ToyConfig(values=(1,)), ToyConfig(values=tuple(range(1, n_cells + 1)), steps=steps))
    with sweep_session(_Workers(workers), revision=REV) as sess:

        def gate():
            return confirm_module.confirm_cost([claim], "full", "cpu", sess, confirm=confirm, log=lambda s: None)

        if refused:
            with pytest.raises(confirm_module.CostNotConfirmed, match="--confirm-cost"):
                gate()
        else:
            (est,) = gate()
            assert est.pending == n_cells and est.pending_s == pytest.approx(n_cells * steps)


def test_the_cost_gate_is_only_for_full_scale(monkeypatch) -> None:
    """A quick report is never estimated nor gated, whatever its cells would cost."""
    monkeypatch.setattr(confirm_module, "calibrate", lambda device: pytest.fail("calibrated at quick scale"))
    claim = toy_claim(ToyConfig(values=(1,), steps=10**9), ToyConfig(values=(1,), steps=10**9))
    with sweep_session(_Workers(1), revision=REV) as sess:
        assert confirm_module.confirm_cost([claim], "quick", "cpu", sess, confirm=False, log=lambda s: None) == []


# ------------------------------------------------------------------ executors


@pytest.mark.parametrize("executor", ["auto", "local", "processes"])
def test_workers_below_one_are_refused_whichever_executor_runs(executor) -> None:
    """``SweepOptions.check`` refuses ``--workers 0`` also where the executor does not use workers."""
    with pytest.raises(ValueError, match="--workers must be >= 1"):
        SweepOptions(executor=executor, workers=0).check()


def test_a_ray_address_needs_the_ray_executor() -> None:
    """``make_executor`` refuses ``ray_address`` with another executor (it would be ignored silently)."""
    for name in ("local", "processes"):
        with pytest.raises(ValueError, match="--ray-address needs --executor ray"):
            executors.make_executor(name, ray_address="auto")


def test_one_whole_gpu_per_cell_is_allowed() -> None:
    """``--gpus-per-cell``: (0, 1] or a whole number; 1 (the default) and 2 are fine, 0, 1.5 and NaN are not."""
    for ok in (None, 0.25, 1, 1.0, 2):
        executors.check_gpus_per_cell(ok)
    for bad in (0, -1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="--gpus-per-cell"):
            executors.check_gpus_per_cell(bad)


def test_a_failing_cell_of_the_processes_executor_keeps_the_others(tmp_path, monkeypatch) -> None:
    """``ProcessExecutor.run_cells``: a failing cell does not stop the cells already submitted; they are stored, then
    the first failure is raised with the count. The pool is threads here (what is tested is how the results are
    collected; the worker processes are test_sweep.py's): the failing cell fails at once, the others take 0.2 s."""
    ex = executors.ProcessExecutor(workers=2)
    with cf.ThreadPoolExecutor(2) as pool:
        monkeypatch.setattr(ex, "_get_pool", lambda: pool)
        with (
            sweep_session(ex, store=tmp_path / "s.sqlite", revision=REV),
            pytest.raises(RuntimeError, match="1 of 3 cells failed; first: cell 'value 2': ValueError"),
        ):
            TOY_GRID.observe(ToyConfig(values=(1, 2, 3), sleep=0.2, fail=(2,)), CTX)
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert sorted(r["label"] for r in store.rows()) == ["value 1", "value 3"]


def test_the_first_failure_is_raised_after_every_cell_with_the_count() -> None:
    """``_raise_first``: the message counts the failed cells and names the first failure."""
    cells = [Cell(f"c{i}", {}, (0,)) for i in range(3)]
    errors = [(cells[0], ValueError("first")), (cells[2], KeyError("second"))]
    with pytest.raises(RuntimeError, match=r"2 of 5 cells failed; first: cell 'c0': ValueError: first"):
        executors._raise_first(errors, 5)
    executors._raise_first([], 5)
