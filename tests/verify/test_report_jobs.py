"""``tvk report -j N``: claims on worker processes (verify/report/pool.py) give the records of the sequential run in
the same order; bad -j values are one-line errors; an error or a Ctrl-C in the workers stops the run cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from verify import cli
from verify.claims import base, external, registry
from verify.claims.external import load_claim_modules
from verify.claims.judges import MaxRel
from verify.report import directory, render
from verify.report import pool as report_pool
from verify.report import run as report
from verify.runtime.cores import cpu_cores
from verify.runtime.device import resolve_device
from verify.runtime.options import RunOptions
from verify.sweep.session import SweepOptions

from .processes import alive

# Symbolic and numeric claims of a few tasks, and one quick training claim (about 5 s on the 2-core CPU).
SELECTION = (
    "shi-thm4.9-margin,edelman-thm7.7-margin,shi-lemC.18-output-as-printed,shi-thm4.9-beta-sign,"
    "shi-lemC.14-fourier-identity,shi-thm4.9-training-k2"
)
QUIET = {"options": RunOptions(progress=False), "log": lambda s: None}

TOY_MODULE = '''
"""Toy claims for tests/verify/test_report_jobs.py: a fast one, an environment error, a crash and slow ones."""
import errno
import os
import signal
import time

from verify.claims import Claim, Observation, register
from verify.claims.judges import MaxRel
from verify.runtime.device import resolve_device
from verify.sweep import Cell, Grid, reads_grid


def slow(cfg, ctx):
    """Write this process's pid, then sleep until interrupted."""
    where = os.path.join(os.environ["TVK_JOBS_TOY_DIR"], f"{os.getpid()}.{time.monotonic_ns()}.pid")
    with open(where, "w") as fh:
        fh.write(str(os.getpid()))
    while True:
        time.sleep(0.05)


def disk_full(cfg, ctx):
    raise OSError(errno.ENOSPC, "No space left on device", "/toy/checkpoint")


def crash(cfg, ctx):
    raise ZeroDivisionError("toy crash")


def die(cfg, ctx):
    os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer does


def cell_pid(cell, ctx):
    return {"pid": os.getpid(), "x": cell.config}


def pids(cfg, results):
    return Observation(1.0, details={"pids": sorted({r.value["pid"] for r in results}), "n": len(results)})


GRID = Grid("jobs-toy-grid", lambda cfg: [Cell(f"x={x}", x, (0,)) for x in range(3)], cell_pid, pids)


@reads_grid(GRID)
def read_cells(cfg, ctx):
    obs = GRID.observe(cfg, ctx)
    return Observation(1.0, details={**obs.details, "reader_pid": os.getpid()})


for cid, observe in [
    ("jobs-toy-fast", lambda cfg, ctx: Observation(1.0)),
    ("jobs-toy-pid", lambda cfg, ctx: Observation(1.0, details={"pid": os.getpid()})),
    ("jobs-toy-env", lambda cfg, ctx: Observation(1.0, details={"env": dict(os.environ), "pid": os.getpid()})),
    ("jobs-toy-crash", crash),
    ("jobs-toy-full", disk_full),
    ("jobs-toy-die", die),
    ("jobs-toy-slow-a", slow),
    ("jobs-toy-slow-b", slow),
    ("jobs-toy-grid", GRID.observe),
    ("jobs-toy-grid-reader", read_cells),
    ("jobs-toy-print", lambda cfg, ctx: print("PRINTED BY A CLAIM") or Observation(1.0)),
]:
    register(
        Claim(
            id=cid,
            source="test",
            statement="s",
            kind="training" if "grid" in cid else "numeric",
            configs={"quick": None},
            predict=lambda cfg: 1.0,
            observe=observe,
            judge=MaxRel(1e-9),
        )
    )
'''


@pytest.fixture
def toy(tmp_path, monkeypatch) -> Path:
    """The toy claim module as a file, loaded like `--claims FILE`; the registry is restored afterwards."""
    path = tmp_path / "jobs_toy_claims.py"
    path.write_text(TOY_MODULE)
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(external, "_LOADED", dict(external._LOADED))
    monkeypatch.setattr(report, "EXTERNAL_SOURCES", external._LOADED)
    monkeypatch.setenv("TVK_JOBS_TOY_DIR", str(tmp_path))
    load_claim_modules([str(path)])
    yield path
    sys.modules.pop("jobs_toy_claims", None)


def test_two_jobs_give_the_records_of_one_job_in_the_same_order(tmp_path) -> None:
    seq, _ = report.run_report(tmp_path / "one", only=SELECTION, **QUIET)
    lines: list[str] = []
    par, meta = report.run_report(
        tmp_path / "two", only=SELECTION, options=RunOptions(progress=False), log=lines.append, jobs=2
    )
    assert meta["jobs"] == 2 and any("on 2 worker process(es)" in line for line in lines)
    assert [r["id"] for r in par] == [r["id"] for r in seq] == [c.id for c in base.select(SELECTION, "quick")]
    assert [r["verdict"] for r in par] == [r["verdict"] for r in seq]
    for a, b in zip(seq, par):
        assert a["predicted"] == b["predicted"], a["id"]
        if a["kind"] == "symbolic":  # exact values: identical; floats may differ in the last bits (thread counts)
            assert a["observed"] == b["observed"], a["id"]
    # the figures, drawn while the workers ran, are those of the sequential run
    figures = [sorted(p.name for p in (tmp_path / run / "figures").iterdir()) for run in ("one", "two")]
    assert figures[0] == figures[1] and figures[0]
    # results.json in selection order; the journal holds the same records, in finishing order
    written = json.loads((tmp_path / "two" / "results.json").read_text())["claims"]
    assert [r["id"] for r in written] == [r["id"] for r in seq]
    journal = [json.loads(line) for line in (tmp_path / "two" / directory.JOURNAL_NAME).read_text().splitlines()]
    assert sorted(r["id"] for r in journal) == sorted(r["id"] for r in par)
    # every claim was started and finished under its number in the selection
    for i, r in enumerate(par, 1):
        assert f"[{i}/{len(par)}] {r['id']} ({r['kind']}) ..." in lines
        assert any(line.startswith(f"[{i}/{len(par)}] {r['id']}: {r['verdict']}") for line in lines)


def _pid_claim(cid: str) -> base.Claim:
    return base.Claim(
        id=cid,
        source="test",
        statement="s",
        kind="numeric",
        configs={"quick": None},
        predict=lambda cfg: 1.0,
        observe=lambda cfg, ctx: base.Observation(1.0, details={"pid": os.getpid()}),
        judge=MaxRel(1e-9),
    )


def test_claims_run_in_workers_or_here_and_a_crash_stays_inconclusive(toy, monkeypatch, tmp_path) -> None:
    """Claims of an external module (`--claims FILE`) run in the workers, which load the module again; a claim that
    is not registered under its id (made up in memory), or registered only in this process (a worker imports its
    module and does not find it), runs in this process; a crash is an inconclusive record; selection order."""
    unregistered, registered_here = _pid_claim("jobs-unregistered"), base.register(_pid_claim("jobs-registered-here"))
    toys = [registry()[cid] for cid in ("jobs-toy-pid", "jobs-toy-crash", "jobs-toy-fast")]
    claims = [unregistered, toys[0], registered_here, toys[1], toys[2]]
    monkeypatch.setattr(report, "select", lambda only, scale: claims)
    lines: list[str] = []
    records, _ = report.run_report(tmp_path / "r", jobs=2, options=RunOptions(progress=False), log=lines.append)
    assert [r["id"] for r in records] == [c.id for c in claims]
    assert records[0]["details"]["pid"] == records[2]["details"]["pid"] == os.getpid()
    assert records[1]["details"]["pid"] != os.getpid()  # in a worker
    assert [r["verdict"] for r in records] == ["pass", "pass", "pass", "inconclusive", "pass"]
    assert "ZeroDivisionError: toy crash" in records[3]["reason"]
    assert any("4 claim(s) on 2 worker process(es)" in line and "1 claim(s)" in line for line in lines)


def test_grid_claims_run_in_the_pool_with_their_readers_after_them(toy, monkeypatch, tmp_path) -> None:
    """With the default executor a grid claim is a unit of the pool: its cells run on its worker and go to the
    report's store, a claim reading its cells follows it on that worker and finds them stored (nothing runs
    again), and each grid record keeps its sweep statistics; with an executor named, both run here after the
    pool, the grid's cells on that executor."""
    claims = [registry()[cid] for cid in ("jobs-toy-grid-reader", "jobs-toy-pid", "jobs-toy-grid", "jobs-toy-fast")]
    monkeypatch.setattr(report, "select", lambda only, scale: claims)
    records, _ = report.run_report(tmp_path / "pool", jobs=2, **QUIET)
    reader, pid, grid = (r["details"] for r in records[:3])
    assert [r["verdict"] for r in records] == ["pass"] * 4, [r["reason"] for r in records]
    assert grid["pids"] == [reader["reader_pid"]] != [os.getpid()]  # the grid's cells and its reader: one worker
    assert grid["n"] == reader["n"] == 3
    assert records[2]["metadata"]["sweep"] == {
        "cells": 3,
        "seeds": 3,
        "executed": 3,
        "stored_before": 0,
        "executor": "local",
        "complete": True,
    }
    assert "sweep" not in records[0]["metadata"] and pid["pid"] != os.getpid()
    lines: list[str] = []
    records, _ = report.run_report(
        tmp_path / "here", jobs=2, sweep=SweepOptions(executor="local"), options=QUIET["options"], log=lines.append
    )
    assert records[2]["details"]["pids"] == [records[0]["details"]["reader_pid"]] == [os.getpid()]
    assert any("2 claim(s) (grid claims and their readers" in line for line in lines)


def test_workers_get_thread_and_malloc_settings_unless_the_user_set_them(toy, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "12345")
    for name in ("MALLOC_MMAP_THRESHOLD_", *report_pool.THREAD_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    claims = [registry()[cid] for cid in ("jobs-toy-env", "jobs-toy-fast")]
    monkeypatch.setattr(report, "select", lambda only, scale: claims)
    records, _ = report.run_report(tmp_path / "r", jobs=2, **QUIET)
    env = records[0]["details"]["env"]
    assert records[0]["details"]["pid"] != os.getpid()
    assert env["MALLOC_MMAP_THRESHOLD_"] == report_pool.MALLOC_VARIABLES["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)
    assert env["MALLOC_TRIM_THRESHOLD_"] == "12345"  # the user's value wins
    assert env["OMP_NUM_THREADS"] == str(max(1, cpu_cores() // 2))
    assert "MALLOC_MMAP_THRESHOLD_" not in os.environ  # set only while the workers start


def test_an_environment_error_in_a_worker_aborts_the_run(toy, tmp_path) -> None:
    out = tmp_path / "r"
    with pytest.raises(
        directory.ReportDirectoryError, match=r"claim jobs-toy-full stopped on an operating-system error.*"
    ):
        report.run_report(out, only="jobs-toy-full,jobs-toy-fast", jobs=2, **QUIET)
    assert not (out / "results.json").exists() and not list(out.glob(f"{directory.STAGE_PREFIX}*"))


def test_a_worker_that_dies_aborts_the_run_with_its_claim_named(toy, tmp_path) -> None:
    out = tmp_path / "r"
    with pytest.raises(report.ReportError, match=r"died while running claim jobs-toy-die \(killed by SIGKILL"):
        report.run_report(out, only="jobs-toy-die,jobs-toy-fast", jobs=2, **QUIET)
    assert not (out / "results.json").exists() and not list(out.glob(f"{directory.STAGE_PREFIX}*"))


@pytest.mark.parametrize("value", ["0", "-3", "two", "1.5", "9" * 5000])
def test_bad_jobs_are_one_line_errors_naming_the_option(value, tmp_path, capsys) -> None:
    code = cli.main(["report", "-j", value, "--out", str(tmp_path / "r"), "--json"])
    out, err = capsys.readouterr()
    assert code == cli.EXIT_BAD_INPUT and "-j/--jobs" in json.loads(out)["error"]
    assert len(err.strip().splitlines()) == 1 and "must be an integer >= 1" in err and len(err) < 300
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("jobs", [0, -1, True, 2.0, "2", 10**6])
def test_bad_jobs_in_python_are_refused_before_any_claim_runs(jobs, tmp_path) -> None:
    with pytest.raises(report.ReportError, match="-j/--jobs"):
        report.run_report(tmp_path / "r", only="shi-thm4.9-beta-sign", jobs=jobs, **QUIET)
    assert not (tmp_path / "r").exists()


def test_cpu_cores_follows_the_affinity_mask(monkeypatch) -> None:
    """A process confined to fewer cores (taskset, a container's CPU set) sizes its workers by those cores, not
    by the machine; without an affinity call it falls back to ``os.cpu_count()``, and never answers 0."""
    import verify.runtime.cores as cores

    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(cores.os, "cpu_count", lambda: 64)
    assert cpu_cores() == 1
    monkeypatch.delattr(cores.os, "sched_getaffinity", raising=False)
    assert cpu_cores() == 64
    monkeypatch.setattr(cores.os, "cpu_count", lambda: None)
    assert cpu_cores() == 1


def test_default_jobs() -> None:
    cores = cpu_cores()
    assert report_pool.default_jobs("cpu", "quick") == cores
    assert report_pool.default_jobs("cuda", "quick") == 1 and report_pool.default_jobs("cpu", "full") == 1
    args = cli.build_parser().parse_args(["report"])
    assert args.jobs is None  # run_report resolves it with default_jobs


def test_the_default_starts_no_worker_for_a_short_selection(tmp_path) -> None:
    """With jobs=None (the CLI's default) four claims of about a second each run here: workers would cost more."""
    lines: list[str] = []
    only = "shi-thm4.9-beta-sign,shi-lemC.18-output-as-printed,edelman-thm7.7-margin,shi-lemC.14-fourier-identity"
    records, meta = report.run_report(
        tmp_path / "r", only=only, jobs=None, options=RunOptions(progress=False), log=lines.append
    )
    assert len(records) == 4 and meta["jobs"] == report_pool.default_jobs(resolve_device("auto").type, "quick")
    assert not any("worker process" in line for line in lines)
    assert lines[0].startswith("[1/4] ")


def _claim(cid: str, kind: str, config: str) -> SimpleNamespace:
    return SimpleNamespace(id=cid, kind=kind, configs={"quick": config}, observe=None, predict=None)


def test_schedule_longest_first_and_training_claims_of_one_run_together() -> None:
    claims = [
        _claim("s1", "symbolic", "a"),
        _claim("t1", "training", "b"),
        _claim("n1", "numeric", "a"),
        _claim("t2", "training", "b"),
        _claim("t3", "training", "c"),
        _claim("n2", "numeric", "a"),
        _claim("t4", "training", ["unhashable"]),
    ]
    key = lambda c: base.shared_unit(c, "quick")  # noqa: E731  (module None here: no observe function)
    units = report_pool.schedule(claims, {"n2": 500.0, "t3": 1.0, "t4": 0.5}, key)
    # n2 and t3 timed before; n1 (numeric) ties with t3 (1 s) and comes first in the selection
    assert [[c.id for c in u] for u in units] == [["n2"], ["t1", "t2"], ["n1"], ["t3"], ["t4"], ["s1"]]
    # without any timing: by kind (training, then numeric, then symbolic), ties in selection order
    units = report_pool.schedule(claims, {}, key)
    assert [[c.id for c in u] for u in units] == [["t1", "t2"], ["t3"], ["t4"], ["n1"], ["n2"], ["s1"]]


def test_one_job_runs_the_claims_of_a_shared_run_together_and_returns_selection_order(monkeypatch) -> None:
    """Sequentially, the claims that share a training run (same module and configuration) run one after another,
    at the place of the first of them: a claim with a run of its own between them would leave the finished shared
    run only in memory while it trains (the k = 3 Markov claim between the k = 2 ones did). The records and their
    numbers stay those of the selection."""
    claims = [
        _claim("t1", "training", "b"),
        _claim("t3", "training", "c"),
        _claim("n1", "numeric", "b"),
        _claim("t2", "training", "b"),
        _claim("t4", "training", ["unhashable"]),
    ]
    ran: list[tuple[str, str]] = []

    def fake_run_one(claim, number, ctx, session, log, journal):
        ran.append((claim.id, number))
        return {"id": claim.id}

    monkeypatch.setattr(report, "_run_one", fake_run_one)
    records = report._run_claims(claims, base.RunContext(), SimpleNamespace(), lambda s: None)
    assert [r["id"] for r in records] == ["t1", "t3", "n1", "t2", "t4"]
    assert ran == [("t1", "1/5"), ("t2", "4/5"), ("t3", "2/5"), ("n1", "3/5"), ("t4", "5/5")]


def test_expected_runtimes_from_the_previous_report(tmp_path) -> None:
    def rec(cid, scale, runtime):
        return {"id": cid, "scale": scale, "metadata": {"runtime_s": runtime}}

    doc = {"header": {}, "claims": [rec("a", "quick", 3.0), rec("b", "full", 9.0), rec("c", "quick", "x")]}
    (tmp_path / "results.json").write_text(json.dumps(doc))
    (tmp_path / "results.jsonl").write_text(json.dumps(rec("a", "quick", 7.5)) + "\nnot json\n")
    prior = report_pool.runtime_prior("quick")
    assert report_pool.expected_runtimes(tmp_path, "quick") == {**prior, "a": 7.5}
    assert report_pool.expected_runtimes(tmp_path, "full") == {"b": 9.0}
    assert report_pool.expected_runtimes(tmp_path / "missing", "quick") == prior
    assert report_pool.runtime_prior("full") == {}


def test_the_shipped_runtime_prior_names_claims_and_puts_the_long_ones_first() -> None:
    """The prior (verify/report/quick_runtimes.json) is read, its ids are claims at quick scale, and it ranks the
    claims that take minutes (the Markov transformers, the width-buys-data grid) before the numeric ones."""
    prior = report_pool.runtime_prior("quick")
    quick = {c.id for c in base.select(None, "quick")}
    assert len(set(prior) & quick) >= 0.9 * len(quick)  # claims added since it was measured schedule by kind
    assert len(set(prior) - quick) <= 0.05 * len(prior)  # claims renamed or dropped since it was measured
    first = sorted(prior, key=prior.get, reverse=True)[:5]
    assert "edelman-ch8-transformer-phases" in first and "edelman-ch6-width-buys-data" in first


def test_a_broken_runtime_prior_gives_nothing(tmp_path, monkeypatch) -> None:
    for text in ("not json", '{"claims": [1]}', '{"claims": {"a": "x", "b": true, "c": 2}}', "{}"):
        (tmp_path / "p.json").write_text(text)
        monkeypatch.setattr(report_pool, "RUNTIME_PRIOR", tmp_path / "p.json")
        assert report_pool.runtime_prior("quick") == ({"c": 2.0} if '"c"' in text else {})


def test_a_units_expected_runtime_is_the_sum_of_its_claims() -> None:
    """Two claims of 3 s sharing one training run (6 s) start before a lone claim of 5 s: a unit costs the sum."""
    claims = [_claim("lone", "numeric", "a"), _claim("t1", "training", "x"), _claim("t2", "training", "x")]
    units = report_pool.schedule(
        claims, {"lone": 5.0, "t1": 3.0, "t2": 3.0}, lambda c: c.configs["quick"] if c.kind == "training" else None
    )
    assert [[c.id for c in u] for u in units] == [["t1", "t2"], ["lone"]]


def test_runtimes_that_are_not_finite_numbers_of_a_named_claim_are_skipped(tmp_path, monkeypatch) -> None:
    """A NaN or infinite runtime (prior or report) or a record without a string id gives no runtime; a torn journal
    line does not hide the lines after it."""
    (tmp_path / "p.json").write_text('{"claims": {"a": NaN, "b": Infinity, "c": 2}}')
    monkeypatch.setattr(report_pool, "RUNTIME_PRIOR", tmp_path / "p.json")
    assert report_pool.runtime_prior("quick") == {"c": 2.0}

    def rec(cid, runtime):
        return json.dumps({"id": cid, "scale": "quick", "metadata": {"runtime_s": runtime}})

    lines = [rec("c", float("nan")), rec(7, 1.0), '{"id": "torn', rec("d", 4.0)]
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert report_pool.expected_runtimes(tmp_path, "quick") == {"c": 2.0, "d": 4.0}


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_the_workers_and_keeps_the_journal(toy, tmp_path, signum) -> None:
    """SIGINT to `tvk report -j 2` (to the parent only, as `kill -INT` does; a terminal's Ctrl-C reaches only the
    parent too, since the workers have their own process group) while two workers sleep in claims: exit 130 with
    one line, no worker left, the finished claim in the journal and no report written. A SIGTERM (`kill`, a batch
    scheduler's time limit) is handled the same way."""
    out = tmp_path / "r"
    only = "jobs-toy-fast,jobs-toy-slow-a,jobs-toy-slow-b"
    argv = ["report", "--claims", str(toy), "--only", only, "-j", "2", "--out", str(out), "--no-progress", "--json"]
    env = {**os.environ, "TVK_JOBS_TOY_DIR": str(tmp_path)}
    code = "import sys; from verify.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("*.pid"))) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        pids = {int(p.read_text()) for p in tmp_path.glob("*.pid")}
        assert len(pids) == 2 and proc.pid not in pids
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == cli.EXIT_INTERRUPTED, stderr.decode()
    assert json.loads(stdout) == {"error": "interrupted", "exit_code": cli.EXIT_INTERRUPTED}
    assert stderr.decode().strip().splitlines()[-1] == "tvk: interrupted"
    assert not any(alive(pid) for pid in pids)
    journal = [json.loads(line)["id"] for line in (out / directory.JOURNAL_NAME).read_text().splitlines()]
    assert journal == ["jobs-toy-fast"]
    assert not (out / "results.json").exists() and not list(out.glob(f"{directory.STAGE_PREFIX}*"))
    assert not (out / ".tvk-report.lock").exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_what_a_claim_prints_goes_to_stderr_and_json_stays_one_object(toy, tmp_path, jobs) -> None:
    """Claim code that prints (an external claim, a library) wrote onto stdout before the JSON object, so `report
    --json` no longer parsed: in this process and in a worker, its output now goes to stderr."""
    argv = ["report", "--claims", str(toy), "--only", "jobs-toy-print,jobs-toy-fast", "-j", jobs]
    argv += ["--out", str(tmp_path / "r"), "--no-progress", "--json"]
    env = {**os.environ, "TVK_JOBS_TOY_DIR": str(tmp_path)}
    code = "import sys; from verify.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"] == {"pass": 2} and "PRINTED BY A CLAIM" in proc.stderr


def test_the_rerun_command_of_a_claim_from_a_file_names_the_file(toy, tmp_path) -> None:
    """The report suggested `--claims jobs_toy_claims` (the module's name) for a claim loaded from a file, which
    finds nothing outside the file's directory: it names the file's path, as `--claims` was given it."""
    report.run_report(tmp_path / "r", only="jobs-toy-crash", jobs=1, **QUIET)
    text = (tmp_path / "r" / "report.md").read_text()
    assert f"tvk report --only 'jobs-toy-crash' --scale quick --out tvk-rerun --claims {toy.resolve()}" in text


def test_the_rerun_command_repeats_the_runs_seed_offset_and_dtype(toy, tmp_path) -> None:
    """A run with --seed-offset 3 --dtype float32 suggested a rerun without them, which draws other seeds: the
    command repeats the options that decide what ran."""
    options = RunOptions(progress=False, seed_offset=3, dtype="float32", ignore_memory_check=True)
    report.run_report(tmp_path / "r", only="jobs-toy-crash", jobs=1, options=options, log=lambda s: None)
    text = (tmp_path / "r" / "report.md").read_text()
    flags = "--seed-offset 3 --dtype float32 --ignore-memory-check"
    assert f"--out tvk-rerun {flags} --claims {toy.resolve()}" in text


def test_the_schema_takes_jobs_in_the_header(tmp_path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    records, meta = report.run_report(tmp_path / "r", only="shi-thm4.9-beta-sign", **QUIET)
    assert meta["jobs"] == 1
    schema = json.loads(render.SCHEMA_PATH.read_text())
    doc = json.loads(render.results_json(records, meta))
    for jobs, ok in ((1, True), (4, True), (None, True), (0, False), ("2", False)):
        doc["header"]["jobs"] = jobs
        assert jsonschema.Draft202012Validator(schema).is_valid(doc) is ok, jobs
