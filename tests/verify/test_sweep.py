"""Sweeps without Ray (verify.sweep): the exact result encoding, the SQLite store, resuming after a killed run,
``--shard`` + merge, the processes executor, the report and CLI options, and the full-scale cost gate.

Executions are counted from a log file that the toy grid's run function appends to (tests/verify/sweep_toy.py),
so a count holds across worker processes and a killed subprocess. The Ray executor is tested in
test_sweep_ray.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from verify import cli
from verify.claims import RunContext, registry, run_claim
from verify.claims.sparse_parity import pareto
from verify.report import run as report
from verify.runtime.options import RunOptions
from verify.sweep import (
    Cell,
    Executor,
    IncompleteGrid,
    ResultStore,
    cell_hash,
    decode,
    encode,
    executors,
    grid_of,
    grid_read_by,
    merge_stores,
    sweep_session,
)
from verify.sweep import session as session_module
from verify.sweep import store as store_module
from verify.sweep.cost import CellCost, DeviceSpeed, estimate_grid
from verify.sweep.session import SweepOptions, parse_shard
from verify.sweep.store import CellEntry, check_store

from .processes import alive
from .sweep_toy import TOY_GRID, TOY_ID, ToyConfig, executions, toy_claim, toy_run

ROOT = str(Path(__file__).resolve().parents[2])
CTX = RunContext(options=RunOptions(progress=False, device="cpu"))
VALUES = tuple(range(1, 9))
REV = "test-revision"


class Refuse(Executor):
    """An executor that must not be asked to run anything (the store has every cell)."""

    name = "refuse"

    def run_cells(self, run, cells, ctx, on_result) -> None:
        if cells:
            raise AssertionError(f"asked to run {len(cells)} cells")


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and np.isnan(a):
        return isinstance(b, float) and np.isnan(b)
    return type(a) is type(b) and a == b


# ------------------------------------------------------------------ encoding and keys

arrays = hnp.arrays(
    dtype=st.sampled_from([np.float32, np.float64, np.int64, np.bool_]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
)
leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=True), st.text(max_size=5), arrays
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.text(alphabet="abc", max_size=3), inner, max_size=3),
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(values)
def test_encode_decode_is_exact(value) -> None:
    assert _same(decode(encode(value)), value)


def test_encode_rejects_what_it_cannot_restore() -> None:
    for bad in (object(), {1: 2}, {"__tuple__": 1}, np.array([object()])):
        with pytest.raises(TypeError):
            encode(bad)


def test_cell_hash_ignores_seeds_but_not_the_setting_or_the_run_function() -> None:
    a = pareto.cell_config(10, 2, 4, 40, "default", (0, 1), 100, 10)
    assert cell_hash(a, toy_run) == cell_hash(a.replace(seeds=(5,)), toy_run)
    assert cell_hash(a, toy_run) != cell_hash(a.replace(width=5), toy_run)
    assert cell_hash(a, toy_run) != cell_hash(a, "other.run")
    assert len(cell_hash(a, toy_run)) == 16 and int(cell_hash(a, toy_run), 16) >= 0  # 16 hex digits


def test_parse_shard() -> None:
    assert parse_shard("1/4") == (1, 4) and parse_shard(None) is None
    for bad in ("4/4", "-1/2", "1", "a/b", "0/0"):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(bad)


# ------------------------------------------------------------------ store


def test_store_is_wal_keyed_and_first_write_wins(tmp_path) -> None:
    path = tmp_path / "s.sqlite"
    kw = dict(label="c", stage=0, config="{}", runtime_s=1.0, host="h", executor="local")
    with ResultStore(path) as store:
        assert store.put(CellEntry("claim", "h1", (0, 1), "r1", result="1", **kw))
        assert not store.put(CellEntry("claim", "h1", (0, 1), "r1", result="2", **kw))  # kept as it was
        assert store.put(CellEntry("claim", "h1", (0, 1), "r2", result="3", **kw))  # another revision
        assert store.put(CellEntry("claim", "h1", (0, 2), "r1", result="4", **kw))  # other seeds
        got = store.get("claim", [("h1", (0, 1)), ("h9", (0,))], "r1")
        assert list(got) == [("h1", "0,1")] and got[("h1", "0,1")].result == "1"
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_status_counts_cells_of_the_plan(tmp_path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    cfg = ToyConfig(values=(1, 2, 3, 4), followup=True)
    with (
        sweep_session("local", store=store, shard="0/2", revision=REV),
        pytest.raises(IncompleteGrid, match="2/4 cells of stage 0"),
    ):
        TOY_GRID.observe(cfg, CTX)
    with ResultStore(store) as s:
        (plan,) = s.status()
    assert (plan.claim_id, plan.done, plan.total) == (TOY_ID, 2, 5) and plan.eta_s is not None and plan.eta_s > 0
    assert cli.main(["sweep", "status", "--store", str(store), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["cells"] == 2 and obj["grids"][0]["done"] == 2 and obj["grids"][0]["total"] == 5
    assert cli.main(["sweep", "status", "--out", str(tmp_path / "nowhere")]) == 2
    assert "no results store" in capsys.readouterr().err


def test_status_reads_without_writing(tmp_path, capsys) -> None:
    """``sweep status`` opens the store read-only: the file's bytes are the same afterwards, and nothing but SQLite's
    own reader files of a WAL store (-wal, -shm: a report may be writing to it) appears beside it."""
    store = tmp_path / "s.sqlite"
    kw = dict(label="c", stage=0, config="{}", runtime_s=1.0, host="h", executor="local")
    with ResultStore(store) as s:
        s.put(CellEntry("claim", "h1", (0,), "r1", result="1", **kw))
    before, listing = store.read_bytes(), sorted(p.name for p in tmp_path.iterdir())
    assert cli.main(["sweep", "status", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == 1
    assert store.read_bytes() == before
    assert set(p.name for p in tmp_path.iterdir()) - set(listing) <= {"s.sqlite-wal", "s.sqlite-shm"}


def _foreign_sqlite(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (x TEXT)")
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize("kind", ["sqlite", "text", "empty-db"])
@pytest.mark.parametrize("command", ["status", "merge-source", "merge-target"])
def test_a_file_that_is_not_a_store_is_refused_untouched(tmp_path, capsys, kind, command) -> None:
    """Another SQLite database or any other file given as a store: exit 2 naming it, and it is not modified (no
    tables added, no WAL), nor is a merge target created."""
    if kind == "sqlite":
        bad = _foreign_sqlite(tmp_path / "other.sqlite")
    elif kind == "text":
        bad = tmp_path / "notes.txt"
        bad.write_text("not a database\n")
    else:
        bad = tmp_path / "empty.sqlite"
        sqlite3.connect(bad).execute("PRAGMA user_version = 7").fetchall()  # a valid database without tables
    good = tmp_path / "good.sqlite"
    with ResultStore(good):
        pass
    before, listing = bad.read_bytes(), sorted(p.name for p in tmp_path.iterdir())
    argv = {
        "status": ["sweep", "status", "--store", str(bad)],
        "merge-source": ["sweep", "merge", str(tmp_path / "new.sqlite"), str(bad)],
        "merge-target": ["sweep", "merge", str(bad), str(good)],
    }[command]
    assert cli.main([*argv, "--json"]) == 2
    out, err = capsys.readouterr()
    assert str(bad) in json.loads(out)["error"] and str(bad) in err
    assert bad.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == listing


# ------------------------------------------------------------------ resuming


def test_rerun_skips_stored_cells(tmp_path) -> None:
    log, store = tmp_path / "log", tmp_path / "s.sqlite"
    cfg = ToyConfig(values=(1, 2, 3), log=str(log), followup=True)
    with sweep_session("local", store=store, revision=REV) as sess:
        first = TOY_GRID.observe(cfg, CTX)
        assert sess.stats[TOY_ID]["executed"] == 4
        again = TOY_GRID.observe(cfg, CTX)
        assert sess.stats[TOY_ID] == {**sess.stats[TOY_ID], "executed": 0, "stored_before": 4, "cells": 4}
    assert len(executions(log)) == 4 and again.value == first.value and again.details == first.details
    with sweep_session("local", store=store, revision="another-revision") as sess:
        TOY_GRID.observe(cfg, CTX)  # new code: every cell runs again
        assert sess.stats[TOY_ID]["executed"] == 4


KILL_SCRIPT = """
from verify.claims.base import RunContext
from verify.runtime.options import RunOptions
from verify.sweep import sweep_session
from tests.verify.sweep_toy import TOY_GRID, ToyConfig
cfg = ToyConfig(values={values!r}, log={log!r}, sleep=0.4)
with sweep_session("local", store={store!r}, revision={rev!r}):
    TOY_GRID.observe(cfg, RunContext(options=RunOptions(progress=False, device="cpu")))
"""


def _stored_count(path: Path) -> int:
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM cells").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_killed_run_resumes_without_redoing_stored_cells(tmp_path) -> None:
    log, store = tmp_path / "log", tmp_path / "s.sqlite"
    script = KILL_SCRIPT.format(values=VALUES, log=str(log), store=str(store), rev=REV)
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env)
    deadline = time.monotonic() + 120
    while _stored_count(store) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.kill()  # SIGKILL: no cleanup of any kind
    proc.wait()
    with ResultStore(store) as s:
        stored = {r["label"] for r in s.rows()}
    ran_before = executions(log)
    assert 3 <= len(stored) < len(VALUES), "the run was not killed midway"
    assert len(ran_before) - len(stored) <= 1  # only the cell in flight was lost
    cfg = ToyConfig(values=VALUES, log=str(log), sleep=0.4)  # the same cells (sleep is part of their config)
    with sweep_session("local", store=store, revision=REV) as sess:
        resumed = TOY_GRID.observe(cfg, CTX)
    ran_after = executions(log)[len(ran_before) :]
    assert not set(ran_after) & stored  # no stored cell was redone
    assert sorted(set(ran_after) | stored) == sorted(f"value {v}" for v in VALUES)
    assert sess.stats[TOY_ID]["executed"] == len(ran_after) == len(VALUES) - len(stored)
    fresh = TOY_GRID.observe(ToyConfig(values=VALUES), CTX)  # in-process, in memory, never interrupted
    assert resumed.value == fresh.value and resumed.details == fresh.details


# ------------------------------------------------------------------ shards


def test_toy_shards_merged_equal_one_run_and_followups_run_after_the_merge(tmp_path) -> None:
    cfg = ToyConfig(values=VALUES, followup=True)
    one = TOY_GRID.observe(cfg, CTX)
    shards = [tmp_path / f"shard{i}.sqlite" for i in range(3)]
    for i, path in enumerate(shards):
        with sweep_session("local", store=path, shard=f"{i}/3", revision=REV) as sess:
            with pytest.raises(IncompleteGrid):
                TOY_GRID.observe(cfg, CTX)
            assert sess.stats[TOY_ID]["executed"] == len(VALUES[i::3])
    counts = merge_stores(tmp_path / "merged.sqlite", shards)
    assert counts["cells_added"] == len(VALUES) and counts["cells"] == len(VALUES)
    with sweep_session("local", store=tmp_path / "merged.sqlite", revision=REV) as sess:
        merged = TOY_GRID.observe(cfg, CTX)
        assert sess.stats[TOY_ID]["executed"] == 1  # only the follow-up stage, which needs every first-stage cell
    assert merged.value == one.value and merged.details == one.details


TINY_GRID = pareto.ParetoGridConfig(
    problems=((10, 2),),
    widths=(2, 32),
    samples=(30, 300),
    seeds=(0, 1, 2),
    steps=300,
    eval_every=50,
    n_val=500,
    num_threads=1,
)


def _tiny_pareto():
    return dataclasses.replace(
        registry()[pareto.PARETO_GRID.claim_id], configs={"quick": TINY_GRID}, deviations={"quick": ()}
    )


def _strip_timing(x):
    if isinstance(x, dict):
        return {k: _strip_timing(v) for k, v in x.items() if k != "wall_s"}
    if isinstance(x, list):
        return [_strip_timing(v) for v in x]
    return x


def test_pareto_shards_merged_give_the_one_run_aggregate(tmp_path) -> None:
    claim = _tiny_pareto()
    one = run_claim(claim, CTX)
    assert one.verdict in {"pass", "inconclusive"} and len(one.details["cells"]) == 8
    for i in range(2):
        with sweep_session("local", store=tmp_path / f"s{i}.sqlite", shard=(i, 2), revision=REV):
            part = run_claim(claim, CTX)
        assert part.verdict == "inconclusive" and "IncompleteGrid" in part.reason and "4/8 cells" in part.reason
    cli.main(
        ["sweep", "merge", str(tmp_path / "merged.sqlite"), str(tmp_path / "s0.sqlite"), str(tmp_path / "s1.sqlite")]
    )
    with sweep_session(Refuse(), store=tmp_path / "merged.sqlite", revision=REV):
        merged = run_claim(claim, CTX)
    assert (merged.verdict, merged.reason) == (one.verdict, one.reason)
    assert _strip_timing(merged.details) == _strip_timing(one.details)
    assert merged.observed == one.observed and merged.artifacts == one.artifacts


# ------------------------------------------------------------------ processes executor


def test_processes_executor_stores_what_local_stores(tmp_path) -> None:
    log = tmp_path / "log"
    cfg = ToyConfig(values=(1, 2, 3, 4), log=str(log), followup=True)
    obs = {}
    for name in ("local", "processes"):
        with sweep_session(name, store=tmp_path / f"{name}.sqlite", workers=2, revision=REV) as sess:
            obs[name] = TOY_GRID.observe(cfg, CTX)
            assert sess.stats[TOY_ID]["executed"] == 5
    assert len(executions(log)) == 10 and len({line.split()[0] for line in log.read_text().splitlines()}) >= 2
    rows = {}
    for name in obs:
        with ResultStore(tmp_path / f"{name}.sqlite") as s:
            rows[name] = {(r["config_hash"], r["seeds"]): r["result"] for r in s.rows()}
    assert rows["local"] == rows["processes"] and len(rows["local"]) == 5
    assert obs["local"].value == obs["processes"].value and obs["local"].details == obs["processes"].details


def test_a_failing_cell_keeps_the_finished_ones(tmp_path) -> None:
    cfg = ToyConfig(values=(1, 2, 3), log="/nonexistent-dir/log")  # every execution fails to open its log
    with sweep_session("local", store=tmp_path / "s.sqlite", revision=REV), pytest.raises(OSError):
        TOY_GRID.observe(cfg, CTX)


# ------------------------------------------------------------------ report, CLI, cost


def test_report_records_the_cells_and_resumes(tmp_path, monkeypatch) -> None:
    claim = toy_claim(ToyConfig(values=(1, 2, 3), log=str(tmp_path / "log"), followup=True))
    monkeypatch.setattr(report, "select", lambda only, scale: [claim])
    out = tmp_path / "rep"
    records, _ = report.run_report(out, options=RunOptions(progress=False), log=lambda s: None)
    sweep = records[0]["metadata"]["sweep"]
    assert records[0]["verdict"] == "pass" and (sweep["cells"], sweep["seeds"], sweep["executed"]) == (4, 12, 4)
    assert "verdict rests on 4 cells (12 seed runs)" in (out / "report.md").read_text()
    assert "verdict rests on 4 cells" in (out / "report.html").read_text()
    records, _ = report.run_report(out, options=RunOptions(progress=False), log=lambda s: None)
    assert records[0]["metadata"]["sweep"]["executed"] == 0 and len(executions(tmp_path / "log")) == 4
    # a shard job runs grid claims only, and its incomplete grid is not a failure of the job
    assert cli.main(["report", "--out", str(tmp_path / "shard"), "--shard", "0/2", "--no-progress"]) == 0
    rec = json.loads((tmp_path / "shard" / "results.json").read_text())["claims"][0]
    assert rec["verdict"] == "inconclusive" and rec["metadata"]["sweep"]["complete"] is False


def test_report_without_grid_claims_makes_no_store(tmp_path) -> None:
    report.run_report(tmp_path / "r", only="shi-lemC.18*", options=RunOptions(progress=False), log=lambda s: None)
    assert not (tmp_path / "r" / "sweep.sqlite").exists()


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--shard", "2/2"], "--shard I/N needs"),
        (["--ray-address", "auto"], "--ray-address needs --executor ray"),
        (["--executor", "processes", "--workers", "0"], "--workers must be >= 1"),
    ],
)
def test_cli_sweep_options_bad_input(tmp_path, capsys, argv, match) -> None:
    assert cli.main(["report", "--only", "edelman-ch6-fig6.1*", "--out", str(tmp_path), *argv]) == 2
    assert match in capsys.readouterr().err


def test_every_sweep_option_is_read_from_the_command_line() -> None:
    """Each SweepOptions field comes from the report option of its name: the defaults with no option, and a value
    different from every default when each option is given."""
    import argparse

    from verify.sweep.cli import add_report_options, sweep_options
    from verify.sweep.session import SweepOptions

    parser = argparse.ArgumentParser()
    add_report_options(parser)
    assert sweep_options(parser.parse_args([])) == SweepOptions()
    argv = ["--executor", "ray", "--ray-address", "h:1", "--workers", "3", "--gpus-per-cell", "0.5", "--shard", "1/4"]
    got = sweep_options(parser.parse_args([*argv, "--confirm-cost"]))
    want = SweepOptions("ray", "h:1", 3, 0.5, "1/4", True)
    assert got == want and all(getattr(got, f.name) != f.default for f in dataclasses.fields(SweepOptions))


def _closed_port() -> int:
    """A local TCP port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_ray_head_is_refused_before_any_claim_runs(tmp_path, capsys) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    out = tmp_path / "r"
    argv = ["report", "--only", "edelman-ch6-fig6.1*", "--out", str(out), "--executor", "ray", "--ray-address"]
    assert cli.main([*argv, address]) == 2
    err = capsys.readouterr().err
    assert f"--ray-address '{address}': cannot connect" in err and "ray start --head" in err
    assert not out.exists()


@pytest.mark.parametrize("address", ["head:", "ray://:10001", "host:99999", "host:port"])
def test_malformed_ray_address_is_refused(address) -> None:
    with pytest.raises(ValueError, match="is not an address"):
        executors.ray_head(address)


def test_a_ray_cluster_that_refuses_the_session_stops_the_run(tmp_path, monkeypatch) -> None:
    """A head that accepts TCP but is not a Ray cluster (a proxy, another service): ray.init fails after its
    retries; that is the environment, not the claim, so the run stops (exit 2) instead of an inconclusive verdict."""
    pytest.importorskip("ray", reason="needs the `distributed` extra")
    import ray

    def refuse(*args, **kwargs):
        raise ConnectionError("Failed to connect to Ray cluster")

    monkeypatch.setattr(ray, "init", refuse)
    monkeypatch.setattr(executors, "check_ray_address", lambda address, timeout=0: None)
    monkeypatch.setattr(session_module, "check_ray_address", lambda address, timeout=0: None)
    with pytest.raises(OSError, match="cannot connect to the Ray cluster at 'head:6379'"):
        report.run_report(
            tmp_path / "r",
            only="edelman-ch6-fig6.1*",
            options=RunOptions(progress=False),
            sweep=SweepOptions(executor="ray", ray_address="head:6379"),
            log=lambda s: None,
        )


def test_ray_missing_names_the_extra(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    assert cli.main(["report", "--only", "edelman-ch6-fig6.1*", "--out", str(tmp_path), "--executor", "ray"]) == 2
    err = capsys.readouterr().err
    assert 'pip install -e ".[distributed]"' in err and "distributed" in err


def test_full_scale_cost_is_printed_and_needs_confirmation_above_an_hour(tmp_path, monkeypatch) -> None:
    quick = ToyConfig(values=(1,), log=str(tmp_path / "log"))
    full = ToyConfig(values=(1, 2, 3), log=str(tmp_path / "log"), steps=10**9)
    claim = toy_claim(quick, full)
    monkeypatch.setattr(report, "select", lambda only, scale: [claim])
    lines: list[str] = []
    with pytest.raises(ValueError, match="--confirm-cost"):
        report.run_report(
            tmp_path / "r", scale="full", options=RunOptions(device="cpu", progress=False), log=lines.append
        )
    assert not executions(tmp_path / "log")  # nothing ran
    assert any(f"{TOY_ID}: 3 cells, 3 to run x" in line for line in lines), lines
    speed = DeviceSpeed("cpu", overhead_s=1e-4, flops_per_s=1e9)
    est = estimate_grid(grid_of(claim), full, speed)
    assert est.cells == 3 and est.pending_s == pytest.approx(3 * 10**9 * (1e-4 + 1e3 / 1e9))
    assert speed.seconds(CellCost(steps=10, step_flops=1e9, evals=2, eval_flops=2e9)) == pytest.approx(
        10 * (1e-4 + 1) + 2 * (1e-4 + 2)
    )


def test_grid_claims_and_their_cells() -> None:
    grids = {cid for cid, c in registry().items() if grid_of(c) is not None}
    assert grids >= {
        "edelman-ch5-fig5.1-tc-grows-with-n",
        "edelman-ch5-fig5.2-no-early-convergence",
        "edelman-ch5-fig5.3-hidden-progress",
        "edelman-ch6-fig6.1-pareto-grid",
        "edelman-ch6-width-buys-data",
    }
    for cid in grids:
        claim = registry()[cid]
        for scale, cfg in claim.configs.items():
            stages = grid_of(claim).plan(cfg)
            cells = [c for stage in stages for c in stage]
            assert all(isinstance(c, Cell) and c.seeds for c in cells), cid
            keys = [(grid_of(claim).key(c), c.seeds) for c in cells]
            assert len(set(keys)) == len(keys), f"{cid} {scale}: two cells share a key"
    full = registry()["edelman-ch6-fig6.1-pareto-grid"].configs["full"]
    assert len(pareto.PARETO_GRID.plan(full)[0]) == 12 * 2 * 18 * 9  # (n,k) x init x m x r of App. C.3.1


def test_the_auto_executor_runs_grids_on_one_process_per_report_job() -> None:
    """``--executor auto`` (the default): the grid claims run after the report's job pool, so a report of several
    jobs gives them as many processes (``--workers`` when given), and a one-job report runs them here."""
    auto = SweepOptions()
    assert auto.executor == "auto"
    auto.check()
    assert (auto.resolved(2).executor, auto.resolved(2).workers) == ("processes", 2)
    assert (SweepOptions(workers=3).resolved(2).workers, auto.resolved(1).executor) == (3, "local")
    for explicit in ("local", "processes"):
        assert SweepOptions(executor=explicit).resolved(4).executor == explicit
    with pytest.raises(ValueError, match="auto, local, processes, ray"):
        SweepOptions(executor="threads").check()


def test_a_claim_that_reads_a_grid_runs_with_the_grid_claims() -> None:
    """Finding (3) observes through the Pareto grid's cells (``reads_grid``): a report runs it in its own process
    after the grid claims, where the cells are in the store, not in a worker that would train them again."""
    finding3, grid = registry()["edelman-ch6-finding3-sparse-vs-dense"], registry()["edelman-ch6-fig6.1-pareto-grid"]
    assert grid_of(finding3) is None and grid_read_by(finding3) is grid_of(grid) is not None
    assert grid_read_by(registry()["shi-thm4.9-margin"]) is None


# ------------------------------------------------------------------ stores that are not stores (QA pass)


@pytest.mark.parametrize("command", ["status", "merge-source"])
def test_an_empty_file_is_not_a_store(tmp_path, capsys, command) -> None:
    """A zero-byte file given to read is refused naming it (was exit 3, no such table), and a merge leaves no
    target behind."""
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    argv = {
        "status": ["sweep", "status", "--store", str(empty)],
        "merge-source": ["sweep", "merge", str(tmp_path / "m4.sqlite"), str(empty)],
    }[command]
    assert cli.main([*argv, "--json"]) == 2
    out, err = capsys.readouterr()
    assert "empty file" in json.loads(out)["error"] and str(empty) in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite"] and empty.read_bytes() == b""


def test_an_empty_file_as_the_merge_target_becomes_a_store(tmp_path, capsys) -> None:
    good, target = tmp_path / "good.sqlite", tmp_path / "target.sqlite"
    with ResultStore(good):
        pass
    target.write_bytes(b"")
    assert cli.main(["sweep", "merge", str(target), str(good), "--json"]) == 0
    check_store(target)


def test_the_merge_says_how_the_report_finds_the_store_and_status_takes_one_place(tmp_path, capsys) -> None:
    """`tvk report --out DIR` reads DIR/sweep.sqlite only: merged into a report directory, the merge names it;
    into another file name, it says to put the store there (it named that file's folder, where the report would
    not look). `sweep status` takes --out or --store, not both (--out was ignored)."""
    good = tmp_path / "good.sqlite"
    with ResultStore(good):
        pass
    (tmp_path / "rep").mkdir()
    assert cli.main(["sweep", "merge", str(tmp_path / "rep"), str(good)]) == 0
    assert f"`tvk report --out {tmp_path / 'rep'}` aggregates them" in capsys.readouterr().out
    assert cli.main(["sweep", "merge", str(tmp_path / "merged.sqlite"), str(good)]) == 0
    assert "once the store is DIR/sweep.sqlite" in capsys.readouterr().out
    assert cli.main(["sweep", "status", "--out", str(tmp_path), "--store", str(good)]) == 2
    assert "not allowed with argument --out" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["/proc/version", "/proc/x", "/proc/x/y.sqlite"])
def test_an_unusable_merge_target_is_one_plain_line(tmp_path, capsys, target) -> None:
    good = tmp_path / "good.sqlite"
    with ResultStore(good):
        pass
    assert cli.main(["sweep", "merge", target, str(good), "--json"]) == 2
    out, err = capsys.readouterr()
    message = json.loads(out)["error"]
    assert target in message and "Error" not in message and err.count("\n") == 1


def test_a_merge_that_fails_removes_the_target_it_created(tmp_path, capsys, monkeypatch) -> None:
    good = tmp_path / "good.sqlite"
    with ResultStore(good):
        pass
    before = sorted(p.name for p in tmp_path.iterdir())

    def broken(*a, **k):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store_module, "_merge_into", broken)
    with pytest.raises(sqlite3.OperationalError):
        merge_stores(tmp_path / "new" / "m.sqlite", [good])
    assert sorted(p.name for p in tmp_path.iterdir()) == before


ORPHAN_SCRIPT = """
import time
from verify.sweep.executors import ProcessExecutor
pool = ProcessExecutor(workers=1)._get_pool()
pool.submit(time.sleep, 0.01).result()  # the worker is up
print(*[p.pid for p in pool._processes.values()], flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to tell a zombie from a running process")
def test_a_process_worker_exits_when_its_parent_is_killed_outright() -> None:
    """The `--executor processes` pool's worker used to wait for ever after a SIGKILL of the sweep (re-parented to
    init, ~460 MB held); like the report's `-j` workers it now exits within about a second."""
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    worker = int(proc.stdout.readline())
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.2)
    still = alive(worker)
    if still:
        os.kill(worker, 9)
    assert not still, "the worker outlived its killed parent"


def test_starting_ray_keeps_the_commands_interrupt_handlers() -> None:
    """ray.init installs a C++ SIGTERM handler that aborts with a stack dump (exit 134); the executor puts back the
    handlers it found, so a scheduler's SIGTERM stops `tvk` as a Ctrl-C does (checked with a real Ray: exit 130)."""
    from verify.sweep.executors import _keeping_signal_handlers

    def mine(signum, frame):  # pragma: no cover - never called
        raise KeyboardInterrupt

    before = {sig: signal.signal(sig, mine) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with _keeping_signal_handlers():
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # what starting Ray does to this process, in effect
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGTERM) is mine and signal.getsignal(signal.SIGINT) is mine
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
