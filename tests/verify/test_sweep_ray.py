"""The Ray executor on a local Ray instance with 2 CPUs (Ray is in the ``test`` extra; without it the module is
skipped): a small Pareto grid claim run through Ray gives the in-process verdict and stores the same cell
results (same seeds, same numbers), and a rerun on Ray after part of the grid was stored runs only the rest
(executions counted from the toy grid's log)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify.claims import RunContext, registry, run_claim
from verify.claims.sparse_parity import pareto
from verify.runtime.options import RunOptions
from verify.sweep import IncompleteGrid, ResultStore, sweep_session
from verify.sweep.executors import local_ray_options

from .sweep_toy import TOY_GRID, TOY_ID, ToyConfig, executions

ray = pytest.importorskip("ray", reason='the Ray tests need the `distributed` extra (pip install -e ".[distributed]")')

ROOT = str(Path(__file__).resolve().parents[2])
CTX = RunContext(options=RunOptions(progress=False, device="cpu"))
REV = "test-revision"

SMALL_GRID = pareto.ParetoGridConfig(
    problems=((10, 2),),
    widths=(2, 32),
    samples=(30, 300),
    seeds=(0, 1, 2),
    steps=400,
    eval_every=50,
    n_val=500,
    num_threads=1,
)


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray with 2 CPUs for this module, started as the ray executor starts one; its workers import the tests
    package from the repository root."""
    ray.init(**local_ray_options(2), runtime_env={"env_vars": {"PYTHONPATH": ROOT}})
    yield ray
    ray.shutdown()


def _rows(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    with ResultStore(path) as store:
        return {(r["config_hash"], r["seeds"]): (r["label"], r["result"]) for r in store.rows()}


def test_ray_grid_claim_equals_in_process(local_ray, tmp_path) -> None:
    claim = dataclasses.replace(
        registry()[pareto.PARETO_GRID.claim_id], configs={"quick": SMALL_GRID}, deviations={"quick": ()}
    )
    records = {}
    for name in ("local", "ray"):
        with sweep_session(name, store=tmp_path / f"{name}.sqlite", revision=REV) as sess:
            records[name] = run_claim(claim, CTX)
            assert sess.stats[claim.id]["executed"] == 8 and sess.stats[claim.id]["executor"] == name
    local, on_ray = records["local"], records["ray"]
    assert "traceback" not in on_ray.details, on_ray.details.get("traceback")
    assert (on_ray.verdict, on_ray.reason) == (local.verdict, local.reason)
    assert on_ray.observed == local.observed and on_ray.artifacts == local.artifacts
    stored_local, stored_ray = _rows(tmp_path / "local.sqlite"), _rows(tmp_path / "ray.sqlite")
    assert len(stored_local) == 8 and stored_ray == stored_local  # same keys, same result text, bit for bit
    with ResultStore(tmp_path / "ray.sqlite") as store:
        assert {r["executor"] for r in store.rows()} == {"ray"}


def test_ray_rerun_runs_only_the_cells_not_stored(local_ray, tmp_path) -> None:
    log, store = tmp_path / "log", tmp_path / "s.sqlite"
    cfg = ToyConfig(values=(1, 2, 3, 4, 5), log=str(log), followup=True)
    # a first job stores cells 0, 2, 4
    with sweep_session("ray", store=store, shard="0/2", revision=REV), pytest.raises(IncompleteGrid):
        TOY_GRID.observe(cfg, CTX)
    first = executions(log)
    assert sorted(first) == ["value 1", "value 3", "value 5"]
    with sweep_session("ray", store=store, revision=REV) as sess:
        on_ray = TOY_GRID.observe(cfg, CTX)
        assert sess.stats[TOY_ID]["executed"] == 3 and sess.stats[TOY_ID]["stored_before"] == 3
    assert sorted(executions(log)[len(first) :]) == ["followup", "value 2", "value 4"]
    in_process = TOY_GRID.observe(ToyConfig(values=(1, 2, 3, 4, 5), followup=True), CTX)
    assert on_ray.value == in_process.value and on_ray.details == in_process.details


def _niceness() -> int:
    return os.nice(0)


@pytest.mark.skipif("RAY_worker_niceness" in os.environ, reason="RAY_worker_niceness is set: Ray's, not ours")
def test_local_ray_workers_run_at_the_drivers_niceness(local_ray) -> None:
    """Ray's default runs workers at niceness 15, where beside any other load a cell waits for CPU time."""
    assert local_ray.get(local_ray.remote(_niceness).remote()) == os.nice(0)


def test_a_failing_ray_cell_keeps_the_others_and_is_raised_at_the_end(local_ray, tmp_path) -> None:
    """A failing cell does not stop the cells already submitted (``Executor.run_cells``): they are stored, then the
    first failure is raised with the count (the failing cell fails at once, the others take 0.3 s)."""
    cfg = ToyConfig(values=(1, 2, 3), sleep=0.3, fail=(2,))
    with (
        sweep_session("ray", store=tmp_path / "s.sqlite", revision=REV),
        pytest.raises(RuntimeError, match="1 of 3 cells failed; first: cell 'value 2'"),
    ):
        TOY_GRID.observe(cfg, CTX)
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert sorted(r["label"] for r in store.rows()) == ["value 1", "value 3"]


def test_closing_the_ray_executor_leaves_a_ray_it_did_not_start(local_ray) -> None:
    """``RayExecutor.close`` stops only a local Ray it started itself, not the one this process had connected to."""
    with sweep_session("ray", revision=REV):
        TOY_GRID.observe(ToyConfig(values=(1,)), CTX)
    assert local_ray.is_initialized()


NICE_SCRIPT = """
import os, ray
from verify.sweep.executors import local_ray_options
os.nice(3)
ray.init(**local_ray_options(1))
print(os.nice(0), ray.get(ray.remote(lambda: os.nice(0)).remote()), flush=True)
ray.shutdown()
"""


@pytest.mark.slow(reason="starts a second local Ray in a subprocess: about 10 s")
@pytest.mark.skipif("RAY_worker_niceness" in os.environ, reason="RAY_worker_niceness is set: Ray's, not ours")
def test_a_niced_driver_gets_workers_at_its_own_niceness() -> None:
    """Ray's ``worker_niceness`` is added to the niceness its raylet inherits from the driver: a driver at niceness 3
    that asked for 3 got workers at 6. Checked in a subprocess reniced by 3 whatever the test's own niceness."""
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", NICE_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    driver, worker = (int(x) for x in out.stdout.split()[-2:])
    assert driver == os.nice(0) + 3 and worker == driver, out.stderr[-2000:]
