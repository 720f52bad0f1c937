"""``tvk report --plan`` (verify/report/plan.py): estimates before anything runs, unknowns marked, nothing trained."""

import json
import math
from dataclasses import replace

import pytest

from verify import cli
from verify.claims import registry
from verify.report import archive, plan
from verify.runtime.jsonable import to_jsonable
from verify.sweep import cost
from verify.train import markov, modular_relu, polynomial

GRID = "edelman-ch5-fig5.3-hidden-progress"  # a grid claim: the cost model and the parity trainer's memory estimate
SYMBOLIC = "edelman-ch5-lemB.2-exact-gap"
TRAINING = "edelman-ch5-thm5.5-mlp-algorithm"  # a training claim without an estimator
SPEED = cost.DeviceSpeed("cpu", 1e-4, 1e9)
NO_TIME = type("NoTime", (), {"seconds_per_step": None})()  # a trainer plan that gives no time


@pytest.fixture
def nothing_runs(monkeypatch):
    """Calibration fixed (deterministic and quick); running a claim or a grid cell fails the test."""

    def no_run(*a, **k):
        raise AssertionError("--plan must not run anything")

    import verify.claims.base as base
    import verify.report.run as run
    from verify.sweep import grid as grid_module

    monkeypatch.setattr(cost, "calibrate", lambda device="auto": SPEED)
    monkeypatch.setattr(cost, "probe_cell_step", lambda config, device, seconds=None: None)  # no probe: the model alone
    monkeypatch.setattr(markov, "probe_transformer_step", lambda cfg, device, steps=2: 0.0)  # likewise
    monkeypatch.setattr(markov, "probe_transformer_eval", lambda cfg, device, **kw: 0.0)  # likewise
    monkeypatch.setattr(modular_relu, "probe_relu_step", lambda cfg, device, steps=2: 0.0)  # likewise
    monkeypatch.setattr(polynomial, "estimate_run", lambda *a, **k: NO_TIME)  # likewise
    monkeypatch.setattr(polynomial, "probe_evaluation", lambda *a, **k: 0.0)  # likewise
    monkeypatch.setattr(plan, "_PROBED", {})  # nothing probed by an earlier test
    monkeypatch.setattr(base, "run_claim", no_run)
    monkeypatch.setattr(base, "evaluate", no_run)
    monkeypatch.setattr(run, "run_claim", no_run)
    monkeypatch.setattr(grid_module.Grid, "observe", no_run)


def test_plan_json_lists_estimates_and_marks_unknowns(tmp_path, nothing_runs, capsys):
    only = f"{GRID},{SYMBOLIC},{TRAINING}"
    argv = ["report", "--scale", "full", "--plan", "--device", "cpu", "--only", only, "--json", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == plan.PLAN_SCHEMA and doc["scale"] == "full" and doc["device"] == "cpu"
    rows = {r["id"]: r for r in doc["claims"]}
    assert set(rows) == {GRID, SYMBOLIC, TRAINING}
    grid = rows[GRID]
    assert grid["basis"] == "grid cost model" and grid["seconds"] > 0 and grid["memory_bytes"] > 0
    assert grid["fits"] is True
    for cid in (SYMBOLIC, TRAINING):
        assert rows[cid]["seconds"] is None and rows[cid]["memory_bytes"] is None and rows[cid]["fits"] is None
        assert rows[cid]["basis"] == "unknown" and rows[cid]["note"]
    tot = doc["totals"]
    assert tot["claims"] == 3 and tot["time_known"] == 1 and tot["time_unknown"] == 2
    assert tot["seconds_known_total"] == pytest.approx(grid["seconds"])
    assert doc["calibration"]["flops_per_s"] == SPEED.flops_per_s
    assert not (tmp_path / "results.json").exists()  # no report was written


def test_a_probed_grid_scales_every_cells_updates_by_the_probes_ratio(tmp_path, nothing_runs, monkeypatch):
    """The median cell's update probed at 10 times the model's: every cell's updates take 10 times the model's
    time, its evaluations the model's, and the note says so."""
    from verify.sweep.grid import grid_of

    claim = registry()[GRID]
    grid, config = grid_of(claim), claim.configs["full"]
    cells = [c for stage in grid.plan(config) for c in stage]
    median = sorted(cells, key=lambda c: SPEED.seconds(grid.cost(c)))[len(cells) // 2]
    monkeypatch.setattr(
        cost, "probe_cell_step", lambda cfg, device, seconds=None: 10 * SPEED.step_seconds(grid.cost(median))
    )
    est = plan._grid_estimate(claim, grid, config, SPEED)
    expected = sum(
        grid.cost(c).steps * SPEED.step_seconds(grid.cost(c)) * 10
        + grid.cost(c).evals * (SPEED.overhead_s + grid.cost(c).eval_flops / SPEED.flops_per_s)
        for c in cells
    )
    assert est.seconds == pytest.approx(expected) and "x10 on every cell's updates" in est.note
    assert cost.estimate_grid(grid, config, SPEED).pending_s == pytest.approx(expected)


def test_the_plan_probes_its_grids_cheapest_first(nothing_runs, monkeypatch):
    """``make_plan`` estimates every grid unprobed, then probes them from the cheapest unprobed estimate up (the
    claims near the 2-hour threshold first, within the plan's probe budget)."""
    from verify.sweep.grid import grid_of

    ids = [GRID, "edelman-ch6-width-buys-data", "edelman-ch5-figB.11-small-m-fails"]
    claims = [registry()[i] for i in ids]
    probed: list = []
    monkeypatch.setattr(cost, "probe_cell_step", lambda cfg, device, seconds=None: probed.append(cfg) or 1e-3)
    rows, _ = plan.make_plan(claims, "full", "cpu")
    unprobed = {c.id: plan._grid_estimate(c, grid_of(c), c.configs["full"], SPEED, probe=False).seconds for c in claims}

    def median_config(claim):
        grid, config = grid_of(claim), claim.configs["full"]
        cells = [c for stage in grid.plan(config) for c in stage]
        return sorted(cells, key=lambda c: SPEED.seconds(grid.cost(c)))[len(cells) // 2].config

    expected = [median_config(c) for c in sorted(claims, key=lambda c: unprobed[c.id])]
    assert probed == expected
    assert all("probed now" in r.note for r in rows)


def test_the_parity_probe_times_the_real_update():
    """``probe_parity_step`` runs the real trainer (a tiny cell here) and returns a positive time per update."""
    from verify.train.sparse_parity import probe_parity_step

    claim = registry()[GRID]
    from verify.sweep.grid import grid_of

    cell = grid_of(claim).plan(claim.configs["quick"])[0][0]
    small = __import__("dataclasses").replace(cell.config, seeds=cell.config.seeds[:2])
    assert 0 < probe_parity_step(small, "cpu", steps=2) < 5


def test_the_parity_probe_counts_the_evaluations_of_the_real_config(monkeypatch):
    """With a fake trainer on a fake clock (u seconds an update, e seconds a validation point and f for the training
    accuracy at every evaluation), the probe is the update with its two small evaluations, plus the real
    evaluation's extra cost spread over eval_every updates."""
    import time

    from verify.train import sparse_parity as sp

    u, e, f = 0.01, 1e-5, 0.3
    clock = [0.0]

    def fake_train(cfg, options, callback, data_chunk=None):  # type: ignore[no-untyped-def]
        for step in range(1, cfg.steps + 1):
            clock[0] += u
            if step % cfg.eval_every == 0:
                clock[0] += e * (cfg.n_val or 2000) + (f if cfg.train_accuracy else 0.0)
                callback(step, {})

    monkeypatch.setattr(sp, "_run_parity", fake_train)
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    cfg = sp.SparseParityConfig(
        n=20,
        k=3,
        seeds=(0,),
        steps=10**5,
        eval_every=50,
        mode="offline",
        n_train=100,
        n_val=10_000,
        train_accuracy=True,
    )
    small = u + e * 256 / 5  # the update and its small evaluation (every 5 updates in the probe)
    extra = (e * (10_000 - 256) + f) / 50
    assert sp.probe_parity_step(cfg, "cpu", steps=5) == pytest.approx(small + extra, rel=1e-9)
    quiet = __import__("dataclasses").replace(cfg, n_val=256, train_accuracy=False)
    assert sp.probe_parity_step(quiet, "cpu", steps=5) == pytest.approx(small, rel=1e-9)  # nothing more to count


def test_plan_text_is_a_table_with_totals(tmp_path, nothing_runs, capsys):
    argv = ["report", "--scale", "full", "--plan", "--device", "cpu", "--only", f"{GRID},{SYMBOLIC}"]
    assert cli.main([*argv, "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].startswith("plan for --scale full on cpu (nothing has run)")
    assert lines[1].split()[:5] == ["claim", "kind", "time", "memory", "fits"]
    assert any(line.startswith(GRID) and "grid cost model" in line for line in lines)
    assert any(line.startswith(SYMBOLIC) and "unknown" in line for line in lines)
    assert lines[-1].startswith("total: 2 claims; time known for 1")


def test_plan_uses_a_measured_runtime_of_the_same_configuration(tmp_path, nothing_runs):
    claim = registry()[SYMBOLIC]
    rec = {
        "id": claim.id,
        "scale": "quick",
        "verdict": "pass",
        "predicted": 1,
        "observed": 1,
        "config": to_jsonable(claim.configs["full"]),  # a quick record whose configuration equals the full one
        "metadata": {"runtime_s": 3.25, "seeds": [], "device": "cpu", "timestamp": "2026-11-28T12:00:00+0000"},
    }
    root = tmp_path / "results"
    archive.merge_record(root, archive.make_record(rec, None, revision="x"))
    rows, _ = plan.make_plan([claim], "full", "cpu", archive=root)
    assert rows[0].seconds == 3.25 and rows[0].basis == "measured" and "archive" in rows[0].note
    # another configuration or device type is not a measurement of this one
    rows, _ = plan.make_plan([claim], "full", "cuda", archive=root, calibrate=False)
    assert rows[0].seconds is None
    rec["config"] = {"other": 1}
    rec["metadata"]["timestamp"] = "2026-11-28T13:00:00+0000"
    archive.merge_record(root, archive.make_record(rec, None, revision="x"))
    rows, _ = plan.make_plan([claim], "full", "cpu", archive=root)
    assert rows[0].seconds is None and rows[0].basis == "unknown"


def test_a_resumed_record_times_only_its_last_part_so_the_plan_does_not_take_its_time(tmp_path, nothing_runs):
    """A run resumed from a checkpoint at step 30,753 of 40,000 reports the wall time of its last 9,247 steps (the
    Ch. 8 transformer records of 2026-12-01: about 1 h of a 4 h run): archived, the row stays a current measured
    record (so ``--within`` leaves it alone) with an unknown time; in a report directory it is passed over."""
    claim = registry()[SYMBOLIC]
    meta = {"runtime_s": 3610.3, "seeds": [], "device": "cpu", "timestamp": "2026-12-01T17:09:16+0000"}
    rec = {
        "id": claim.id,
        "scale": "full",
        "verdict": "pass",
        "predicted": 1,
        "observed": 1,
        "config": to_jsonable(claim.configs["full"]),
        "metadata": {**meta, "resumed_from": [{"file": "run.ckpt", "step": 30753}]},
    }
    root = tmp_path / "results"
    archive.merge_record(root, archive.make_record(rec, None, revision="x"))
    (row,), _ = plan.make_plan([claim], "full", "cpu", archive=root, calibrate=False)
    assert row.seconds is None and row.basis == "measured"
    assert "resumed from a checkpoint at step 30,753" in row.note and "last part" in row.note
    run, left = plan.affordable([row], 10**9)
    assert run == [] and left == [(row, "a current record is archived")]
    out = tmp_path / "report"
    out.mkdir()
    (out / "results.jsonl").write_text(json.dumps(rec) + "\n")
    (row,), _ = plan.make_plan([claim], "full", "cpu", out=out, calibrate=False)
    assert row.basis != "measured" and row.seconds != 3610.3
    # the same record without the resumption is a measured time in both places
    rec["metadata"] = meta
    (out / "results.jsonl").write_text(json.dumps(rec) + "\n")
    (row,), _ = plan.make_plan([claim], "full", "cpu", out=out, calibrate=False)
    assert row.seconds == 3610.3 and row.basis == "measured" and row.note.startswith("report directory")


def test_unknown_times_are_never_added():
    rows = [
        plan.PlanRow("a", "training", "s", 10.0, 2**20, True, "grid cost model", ""),
        plan.PlanRow("b", "training", "s", None, None, None, "unknown", "no estimator"),
        plan.PlanRow("c", "training", "s", 3 * 3600.0, 2**40, False, "trainer plan", ""),
    ]
    tot = plan.totals(rows)
    assert tot["seconds_known_total"] == 10.0 + 3 * 3600.0 and tot["time_unknown"] == 1
    assert tot["within_2h"] == 1 and tot["over_2h"] == 1 and tot["does_not_fit"] == 1 and tot["fit_unknown"] == 1
    text = plan.format_plan(rows, {"memory": "cpu: test"}, "full", "cpu")
    assert "unknown for 1" in text and " NO " in text


def test_polynomial_training_claims_get_the_trainers_step_shapes(nothing_runs):
    claims = [registry()[c] for c in ("edelman-thm7.9-training-D5", "shi-thm4.9-training-k2")]
    rows, _ = plan.make_plan(claims, "full", "cpu")
    for row in rows:
        assert row.basis == "trainer cost model" and row.seconds > 0 and row.memory_bytes > 2**20
    # k = 2, p = 97, width 768, 3 seeds, full batch of 97^2 points: 6 n m C x 3 seeds / 2 multiply-adds per step;
    # an evaluation of the 97^2 points is the forward output product, 2 n m C x 3 seeds / 2, at steps 0, 500, ...
    cfg = claims[1].configs["full"]
    madds = 3 * 97**2 * cfg.width * 97 * len(cfg.train.seeds)
    evals = len(range(0, cfg.train.steps + 1, cfg.train.eval_every)) + (cfg.train.steps % cfg.train.eval_every != 0)
    updates = cfg.train.steps * (SPEED.overhead_s + madds / SPEED.flops_per_s)
    assert rows[1].seconds == pytest.approx(updates + evals * (SPEED.overhead_s + madds / 3 / SPEED.flops_per_s))
    # uncalibrated (as on CUDA without a GPU): the memory, the time unknown
    rows, facts = plan.make_plan(claims[1:], "full", "cuda", calibrate=False)
    assert facts["calibration"] is None and rows[0].seconds is None and rows[0].memory_bytes > 2**20


SHAPES = {  # training claims whose trainer counts its step (verify.report.plan._shapes_estimate)
    "edelman-ch8-transformer-phases": 1,
    "edelman-ch8-priors-speed": 2,  # the doubly stochastic and the mixture transformers
    "edelman-fig7.1a-relu-not-single-frequency": 1,
    "shi-fig4.3-wkq-fourier": 1,
    "shi-fig4.3-control": 1,  # the label-shuffled network
    "shi-fig4.3-ablation-layernorm-residual": 4,  # one network per LayerNorm/residual variant
    "shi-fig4.4-grokking-delay": 4,
    "edelman-ch4-fig4.4-parity-transition": 2,  # one run per context length T
    "edelman-ch4-fig4.3-sparse-attention": 1,  # evaluations counted: a forward pass on n_val + m points
}


def test_trainer_cost_models_follow_the_trainers_shapes(nothing_runs):
    from verify.sweep.cost import CellCost
    from verify.train import attention

    claims = [registry()[c] for c in SHAPES]
    rows = {r.id: r for r in plan.make_plan(claims, "full", "cpu")[0]}
    for cid, runs in SHAPES.items():
        row = rows[cid]
        assert row.basis == "trainer cost model" and math.isfinite(row.seconds) and row.seconds > 0, row
        assert row.memory_bytes > 2**20 and f"{runs} run(s)" in row.note
    # the Markov transformer: steps x (launch + 3 forwards' multiply-adds / rate) and its evaluations' forward passes
    tf = registry()["edelman-ch8-transformer-phases"].configs["full"].train
    madds = attention.step_multiply_adds(tf.model, len(tf.seeds), tf.batch, tf.t)
    assert rows["edelman-ch8-transformer-phases"].seconds == pytest.approx(SPEED.seconds(_transformer_work(tf)))
    # doubling the seeds, the batch or (here, where the T^2 scores dominate) nearly the length doubles the work
    assert attention.step_multiply_adds(tf.model, 2 * len(tf.seeds), tf.batch, tf.t) == pytest.approx(2 * madds)
    assert attention.step_multiply_adds(tf.model, len(tf.seeds), 2 * tf.batch, tf.t) == pytest.approx(2 * madds)
    # the ablation trains four networks of the same step cost and steps as Fig. 4.3's; the control 20k of 100k steps
    fourier = rows["shi-fig4.3-wkq-fourier"].seconds
    assert rows["shi-fig4.3-ablation-layernorm-residual"].seconds == pytest.approx(4 * fourier)
    assert rows["shi-fig4.3-control"].seconds == pytest.approx(fourier / 5, rel=1e-3)
    # Fig. 4.3 (AND): every eval_every steps a forward pass (a third of a step) on the n_val + m points
    from verify.train import sparse_variable

    run = registry()["edelman-ch4-fig4.3-sparse-attention"].configs["full"].run
    model, S = sparse_variable.attention_config(run.T, run.model), len(run.seeds)
    train = CellCost(run.steps, attention.step_multiply_adds(model, S, run.m, run.T + 1))
    evals = CellCost(
        0,
        0.0,
        run.steps // run.eval_every + 1,
        attention.step_multiply_adds(model, S, run.n_val + run.m, run.T + 1) / 3,
    )
    assert rows["edelman-ch4-fig4.3-sparse-attention"].seconds == pytest.approx(
        SPEED.seconds(train) + SPEED.seconds(evals)
    )


def test_polynomial_split_claims_use_the_polynomial_step_shapes(nothing_runs):
    claims = [registry()[c] for c in ("shi-fig4.1-split-single-frequency", "shi-fig4.2-split-coverage-k3")]
    for row in plan.make_plan(claims, "full", "cpu")[0]:
        assert row.basis == "trainer cost model" and row.seconds > 0 and row.memory_bytes > 2**20


def _assert_within_5x(pair, tries: int = 3) -> None:
    """``pair()`` gives (estimate, measurement) of one update's time; the estimate must come within a factor 5 of the
    measurement in one of ``tries`` tries (a load spike on a shared machine slows one timing, not three in a row)."""
    seen = []
    for _ in range(tries):
        estimate, measured = pair()
        if measured / 5 <= estimate <= 5 * measured:
            return
        seen.append((estimate, measured))
    raise AssertionError(f"not within 5x in {tries} tries: {seen}")


def _per_step(run, make, a: int) -> float:
    """Seconds per update of a real run: (time of 3a steps - time of a steps) / 2a, after a warm-up run."""
    import time

    run(make(1))
    times = []
    for steps in (a, 3 * a):
        t0 = time.perf_counter()
        run(make(steps))
        times.append(time.perf_counter() - t0)
    return max(times[1] - times[0], 1e-9) / (2 * a)


@pytest.mark.parametrize("trainer", ["markov-transformer", "relu-modular"])
def test_trainer_cost_model_is_within_5x_of_a_short_run(trainer):
    """The cost model's seconds per step, at the device's calibration, within a factor 5 of a measured short run of
    the same trainer at a small size where the products dominate (both on one CPU thread)."""
    import torch

    from verify.runtime.options import RunOptions
    from verify.sweep.cost import CellCost
    from verify.train import attention

    def pair() -> tuple[float, float]:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            speed = cost.calibrate("cpu")
            opts = RunOptions(device="cpu")
            if trainer == "markov-transformer":
                model = attention.AttentionConfig(vocab=2, max_len=64, d=32, layers=2, heads=1, positions="relative")

                def make(steps):
                    return markov.TransformerConfig(
                        k=2, t=64, model=model, steps=steps, batch=32, seeds=(0, 1), eval_every=10**6, eval_n=8
                    )

                measured = _per_step(lambda c: markov.train_transformer(c, opts), make, 6)
                madds = attention.step_multiply_adds(model, 2, 32, 64)
            else:

                def make(steps):
                    return modular_relu.ReluModularConfig(p=41, width=128, seeds=(0, 1), steps=steps, eval_every=10**6)

                measured = _per_step(lambda c: modular_relu.train_relu_modular(c, opts), make, 10)
                madds = modular_relu.step_multiply_adds(make(1))
        finally:
            torch.set_num_threads(threads)
        predicted = speed.seconds(CellCost(1, madds))
        assert math.isfinite(predicted) and predicted > 0
        return predicted, measured

    _assert_within_5x(pair)


def test_minimal_model_claims_are_probed_once_per_shape(nothing_runs):
    ids = ("edelman-ch8-minimal-sgd-structure", "edelman-ch8-minimal-kl-bigram")
    claims = [registry()[c] for c in ids]
    rows = {r.id: r for r in plan.make_plan(claims, "full", "cpu")[0]}
    for row in rows.values():
        assert row.basis == "probe" and math.isfinite(row.seconds) and row.seconds > 0 and row.memory_bytes is None
    steps = [c.configs["full"].train.steps for c in claims]  # the same shapes: one probe, time in proportion to steps
    assert rows[ids[1]].seconds / rows[ids[0]].seconds == pytest.approx(steps[1] / steps[0])
    rows, _ = plan.make_plan(claims[:1], "full", "cuda", calibrate=False)  # no device: nothing probed
    assert rows[0].seconds is None and rows[0].basis == "unknown"


def test_minimal_probe_is_within_5x_of_a_short_run():
    from verify.runtime.options import RunOptions
    from verify.train import markov

    def make(steps):
        return markov.MinimalModelConfig(t=50, steps=steps, batch=32, seeds=(0, 1), eval_every=10**6, eval_n=8)

    def pair() -> tuple[float, float]:
        measured = _per_step(lambda c: markov.train_minimal(c, RunOptions(device="cpu")), make, 4)
        probed = markov.probe_minimal_step(make(1), "cpu", 3)
        assert math.isfinite(probed) and probed > 0
        return probed, measured

    _assert_within_5x(pair)


def test_lsa_claims_are_probed_with_the_real_trainer(nothing_runs, monkeypatch):
    """The probe times the real trainer (a and 3a updates); the claim's time is that per-update time x steps x ranks."""
    monkeypatch.setattr(plan, "_PROBED", {})
    claims = [registry()[c] for c in ("shi-thm5.4.1-training-population", "shi-thm5.4.1-training-sgd")]
    for row, claim in zip(plan.make_plan(claims, "full", "cpu")[0], claims):
        cfg = claim.configs["full"]
        assert row.basis == "probe" and math.isfinite(row.seconds) and row.seconds > 0, row
        (per_step,) = [
            v
            for k, v in plan._PROBED.items()
            if type(k[0]).__name__ == ("PopulationConfig" if cfg.model == "population" else "SGDConfig")
        ]
        assert row.seconds == pytest.approx(per_step * cfg.steps * len(cfg.ranks))


def test_the_local_signal_probe_scales_a_fake_clock_exactly(monkeypatch):
    """With a fake trainer on a fake clock (a set-up, u seconds per seed-row-input of an update, e per seed-row-input
    of an evaluation), the probe returns the configuration's own update and evaluation times: the differences
    cancel the set-up and the seeds, rows and test inputs it left out are scaled back in."""
    import time

    from verify.train import local_signal as ls

    u, e, setup = 1e-8, 3e-9, 0.7
    clock, calls = [0.0], []

    def fake_train(cfg, options):  # type: ignore[no-untyped-def]
        calls.append(cfg)
        S = len(cfg.seeds)
        evals = cfg.steps // cfg.eval_every + 1 + (cfg.steps % cfg.eval_every != 0)
        clock[0] += setup + cfg.steps * u * S * cfg.batch * cfg.k + evals * e * S * cfg.n_test * cfg.k

    monkeypatch.setattr(ls, "train_signal", fake_train)
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(ls, "_TIMED", {})
    cfg = ls.SignalTrainConfig(k=4000, batch=500, steps=89_443, seeds=tuple(range(8)), eval_every=1000, n_test=20_000)
    probe = ls.probe_signal_step(cfg, "cpu", updates=4)
    assert probe is not None and (probe.probe_seeds, probe.probe_k) == (1, ls.PROBE_MAX_PROJECTIONS // 500)
    assert {(len(c.seeds), c.k, c.n_test) for c in calls} == {(1, 2000, 500)}  # the probed shape, never the full one
    assert probe.update_s == pytest.approx(u * 8 * 500 * 4000, rel=1e-9)
    assert probe.evaluation_s == pytest.approx(e * 8 * 20_000 * 4000, rel=1e-9)
    evals = 89_443 // 1000 + 2  # steps 0, 1000, ..., 89,000 and the last
    assert probe.seconds(cfg) == pytest.approx(89_443 * probe.update_s + evals * probe.evaluation_s, rel=1e-12)
    again = ls.probe_signal_step(ls.SignalTrainConfig(k=4000, batch=500, seeds=(5,), n_test=500), "cpu", updates=4)
    assert len(calls) == 3 and again is not None  # the same probed shape: timed once in the process


def test_the_local_signal_probe_says_unknown_when_the_noise_wins(monkeypatch):
    """A clock on which longer runs do not take longer (the machine's noise): PROBE_ATTEMPTS tries, each with 4 times
    the updates, then None, never a negative or zero time."""
    import time

    from verify.train import local_signal as ls

    steps: list[int] = []
    monkeypatch.setattr(ls, "train_signal", lambda cfg, options: steps.append(cfg.steps))
    monkeypatch.setattr(time, "perf_counter", lambda: 1.0)
    monkeypatch.setattr(ls, "_TIMED", {})
    assert ls.probe_signal_step(ls.SignalTrainConfig(k=50, batch=50, seeds=(0,)), "cpu", updates=2) is None
    assert steps == [2, 6, 2, 8, 24, 8, 32, 96, 32][: 3 * ls.PROBE_ATTEMPTS]
    with pytest.raises(ValueError, match="updates"):
        ls.probe_signal_step(ls.SignalTrainConfig(), "cpu", updates=1)


def test_the_local_signal_probe_times_the_real_trainer():
    """A tiny configuration of the real trainer, both simulators: positive, finite update and evaluation times."""
    from verify.train import local_signal as ls

    for simulator in ls.SIMULATORS:
        cfg = ls.SignalTrainConfig(k=20, d=4, batch=20, steps=100, seeds=(0, 1), n_test=40, simulator=simulator)
        probe = ls.probe_signal_step(cfg, "cpu", updates=8)
        if probe is None:  # the machine's noise won three times: allowed, and then said, never a made-up number
            continue
        assert math.isfinite(probe.update_s) and probe.update_s > 0 and probe.evaluation_s > 0


def test_karp_training_claims_are_probed_run_by_run(nothing_runs, monkeypatch):
    """Karp Ch. 3's training claims: the plan sums the probed time of every run the claim makes (Thm 3.1: one run per
    k and seed, ``Thm31Config.runs``; the simulator comparison: the reduced and the direct run); memory is the largest
    run's estimate; Fig. 3.3's note says the CNTK reference line is not counted."""
    from verify.train import local_signal as ls

    fake = ls.SignalProbe(update_s=1e-3, evaluation_s=0.5, probe_seeds=1, probe_k=2)
    monkeypatch.setattr(ls, "probe_signal_step", lambda cfg, device: fake)
    monkeypatch.setattr(plan, "_PROBED", {})
    ids = ("karp-ch3-thm3.1-steps-vs-k", "karp-ch3-reduced-simulator", "karp-ch3-fig3.3-training")
    claims = [registry()[i] for i in ids]
    rows = dict(zip(ids, plan.make_plan(claims, "full", "cpu")[0]))
    thm = claims[0].configs["full"]
    runs = thm.runs()
    assert [(r.k, r.seeds) for r in runs] == [(k, (s,)) for k in thm.ks for s in thm.train.seeds]
    assert rows[ids[0]].basis == "probe"
    assert rows[ids[0]].seconds == pytest.approx(sum(fake.seconds(r) for r in runs))
    assert rows[ids[0]].memory_bytes == max(ls.memory_estimate(r) for r in runs)
    reduction = claims[1].configs["full"].runs()
    assert [r.simulator for r in reduction] == ["reduced", "direct"]
    assert rows[ids[1]].seconds == pytest.approx(sum(fake.seconds(r) for r in reduction))
    assert rows[ids[2]].seconds == pytest.approx(fake.seconds(claims[2].configs["full"].train))
    assert "CNTK reference line not counted" in rows[ids[2]].note
    monkeypatch.setattr(plan, "_PROBED", {})
    monkeypatch.setattr(ls, "probe_signal_step", lambda cfg, device: None)  # the noise won: unknown, not guessed
    (row,) = plan.make_plan(claims[:1], "full", "cpu")[0]
    assert row.seconds is None and row.basis == "unknown"


def test_finding3_costs_the_grid_it_observes(nothing_runs):
    """Finding (3) observes the Pareto grid's cells (``reads_grid``): the plan gives it that grid's estimate, and says
    that the cells are shared."""
    ids = ("edelman-ch6-fig6.1-pareto-grid", "edelman-ch6-finding3-sparse-vs-dense")
    grid_row, finding_row = plan.make_plan([registry()[i] for i in ids], "full", "cpu")[0]
    assert finding_row.basis == grid_row.basis == "grid cost model"
    assert finding_row.seconds == pytest.approx(grid_row.seconds) and finding_row.memory_bytes == grid_row.memory_bytes
    assert "the cells of the grid it observes" in finding_row.note


def test_the_parity_probe_draws_only_the_batches_it_uses(monkeypatch):
    """A probe of ``3 steps`` updates refills its data stream with ``3 steps`` updates' batches, not the
    ``DATA_CHUNK_ELEMENTS`` inputs per seed of a run; a run of the same config still draws whole chunks."""
    import dataclasses

    from verify.train import sparse_parity as sp

    claim = registry()[GRID]
    from verify.sweep.grid import grid_of

    cell = grid_of(claim).plan(claim.configs["quick"])[0][0]
    small = dataclasses.replace(cell.config, seeds=cell.config.seeds[:2], n_val=64, steps=6, eval_every=3)
    whole = max(1, sp.DATA_CHUNK_ELEMENTS // (small.batch_size * small.n))
    assert whole > 6  # else the cap would not show
    chunks: list[int] = []
    refill = sp._DataStream._refill

    def spy(self):  # type: ignore[no-untyped-def]
        chunks.append(self.chunk)
        refill(self)

    monkeypatch.setattr(sp._DataStream, "_refill", spy)
    assert sp.probe_parity_step(small, "cpu", steps=2) is not None
    assert chunks and set(chunks) == {6}
    chunks.clear()
    sp.train_parity(small)
    assert chunks == [whole]


def test_the_parity_probe_stops_once_its_time_is_up(monkeypatch):
    """On a fake clock (one second an update), a probe allowed 7 seconds stops at its evaluation after 10 updates
    and gives None; allowed 60, it gives the update's second."""
    import time

    from verify.train import sparse_parity as sp

    clock = [0.0]
    ran: list[int] = []

    def fake_run(cfg, options, callback, data_chunk=None):  # type: ignore[no-untyped-def]
        for step in range(1, cfg.steps + 1):
            clock[0] += 1.0
            ran.append(step)
            if step % cfg.eval_every == 0:
                callback(step, {})

    monkeypatch.setattr(sp, "_run_parity", fake_run)
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    cfg = sp.SparseParityConfig(n=20, k=3, seeds=(0,), steps=10**5, eval_every=5, n_val=256)
    assert sp.probe_parity_step(cfg, "cpu", steps=5, seconds=7.0) is None
    assert ran[-1] == 10  # the evaluation after 10 updates saw the time up
    assert sp.probe_parity_step(cfg, "cpu", steps=5, seconds=60.0) == pytest.approx(1.0)


def test_a_grid_probe_is_given_what_is_left_of_the_budget(monkeypatch):
    """``probe_scale`` hands the cell's probe the budget's remaining seconds, and charges what the probe took."""
    from verify.sweep.grid import grid_of

    claim = registry()[GRID]
    grid, config = grid_of(claim), claim.configs["full"]
    cells = [c for stage in grid.plan(config) for c in stage]
    given: list = []
    monkeypatch.setattr(cost, "_PROBED", {})
    monkeypatch.setattr(cost, "probe_cell_step", lambda cfg, device, seconds=None: given.append(seconds) or 1e-3)
    budget = cost.ProbeBudget(seconds=20.0, spent=15.0)
    assert cost.probe_scale(cells, grid.cost, SPEED, budget) is not None
    assert given == [pytest.approx(5.0)] and budget.spent > 15.0
    monkeypatch.setattr(cost, "_PROBED", {})
    spent = plan._grid_estimate(claim, grid, config, SPEED, cost.ProbeBudget(seconds=20.0, spent=21.0))
    assert spent.note.endswith("not probed (the plan's 20 s of probes were spent)")


def test_a_cell_probed_before_is_used_after_the_budget_is_spent(monkeypatch):
    """``probe_scale`` with a spent budget: a cell never probed is not probed (None), one probed before in the process
    is used (it costs nothing)."""
    from verify.sweep.grid import grid_of

    claim = registry()[GRID]
    grid, config = grid_of(claim), claim.configs["full"]
    cells = [c for stage in grid.plan(config) for c in stage]
    spent = cost.ProbeBudget(seconds=1.0, spent=2.0)
    monkeypatch.setattr(cost, "_PROBED", {})
    monkeypatch.setattr(cost, "probe_cell_step", lambda cfg, device, seconds=None: 1e-3)
    assert cost.probe_scale(cells, grid.cost, SPEED, spent) is None
    median = sorted(cells, key=lambda c: SPEED.seconds(grid.cost(c)))[len(cells) // 2]
    cost._PROBED[cost._probe_key(median.config, SPEED.device)] = 1e-3
    scale = cost.probe_scale(cells, grid.cost, SPEED, spent)
    assert scale is not None and scale.probed_s == 1e-3


def test_markov_transformer_updates_are_scaled_by_a_probe_of_the_real_trainer(nothing_runs, monkeypatch):
    """The first Markov transformer run a plan meets is timed (a fake probe here: 7 times the model's update), and
    every Markov transformer run's updates take that ratio times the model's; the note gives both times. A probe
    lost in the machine's noise (not positive) leaves the model alone."""
    from verify.sweep.cost import CellCost
    from verify.train import attention

    model_step = []

    def fake_probe(cfg, device, steps=2):  # type: ignore[no-untyped-def]
        madds = attention.step_multiply_adds(cfg.model, len(cfg.seeds), cfg.batch, cfg.t)
        model_step.append(SPEED.step_seconds(CellCost(1, madds)))
        return 7 * model_step[-1]

    monkeypatch.setattr(markov, "probe_transformer_step", fake_probe)
    ids = ("edelman-ch8-transformer-phases", "edelman-ch8-one-layer-control")
    claims = [registry()[i] for i in ids]
    rows = dict(zip(ids, plan.make_plan(claims, "full", "cpu")[0]))
    assert len(model_step) == 1  # one probe per process
    for cid, claim in zip(ids, claims):
        tf = claim.configs["full"].train
        assert rows[cid].seconds == pytest.approx(SPEED.seconds(_transformer_work(tf), 7.0))
        assert "(x7 on every Markov transformer run's updates)" in rows[cid].note
    monkeypatch.setattr(plan, "_PROBED", {})
    monkeypatch.setattr(markov, "probe_transformer_step", lambda cfg, device, steps=2: -1e-3)
    (row,) = plan.make_plan(claims[:1], "full", "cpu")[0]
    tf = claims[0].configs["full"].train
    assert row.seconds == pytest.approx(SPEED.seconds(_transformer_work(tf))) and "probed" not in row.note


def _transformer_work(tf):  # type: ignore[no-untyped-def]
    """A Markov transformer run's work as the plan should count it: its updates, and at each of its evaluations a
    forward pass (a third of an update's multiply-adds) on its eval_n test chains and on the attention chains."""
    from verify.runtime.loop import evaluation_count
    from verify.sweep.cost import CellCost
    from verify.train import attention

    seeds, chains = len(tf.seeds), tf.eval_n + min(markov.MASS_CHAINS, tf.eval_n)
    return CellCost(
        tf.steps,
        attention.step_multiply_adds(tf.model, seeds, tf.batch, tf.t),
        evaluation_count(tf.steps, tf.eval_every),
        attention.step_multiply_adds(tf.model, seeds, chains, tf.t) / 3,
    )


def test_markov_transformer_evaluations_are_counted_and_scaled_by_a_probe_of_the_real_evaluation(
    nothing_runs, monkeypatch
):
    """A full-scale Markov transformer run evaluates 81 times on 4,000 chains in float64 (a fifth of the run): the
    plan counts them, and scales them by a probe of one evaluation (a fake one here: 5 times the model's), once per
    process; the note gives both times."""
    probed = []

    def fake_eval(cfg, device, chains=markov.MASS_CHAINS):  # type: ignore[no-untyped-def]
        probed.append(cfg)
        return 5 * SPEED.eval_seconds(_transformer_work(cfg))

    monkeypatch.setattr(markov, "probe_transformer_eval", fake_eval)
    ids = ("edelman-ch8-transformer-phases", "edelman-ch8-transformer-phases-k3")
    claims = [registry()[i] for i in ids]
    rows = plan.make_plan(claims, "full", "cpu")[0]
    assert len(probed) == 1
    for row, claim in zip(rows, claims):
        work = _transformer_work(claim.configs["full"].train)
        assert work.evals > 1 and row.seconds == pytest.approx(SPEED.seconds(work, 1.0, 5.0))
        assert row.seconds > SPEED.seconds(work, 1.0, 1.0) > SPEED.seconds(replace(work, evals=0))
        assert "(x5 on every Markov transformer run's evaluations)" in row.note


def test_the_transformer_evaluation_probe_scales_a_fake_clock_exactly(monkeypatch):
    """On a fake clock (u seconds per chain of the KL part, v per chain of the attention part), the probe returns
    u eval_n + v min(MASS_CHAINS, eval_n) from its few chains; the warm-up is not timed."""
    import time

    from verify.train import attention

    clock = [0.0]
    u, v = 3e-3, 7e-2
    real_kls, real_masses = markov.evaluate_kls, markov._masses

    def kls(model, test, dev):  # type: ignore[no-untyped-def]
        clock[0] += u * len(test.inputs)
        return real_kls(model, test, dev)

    def masses(m, probe, t, dev):  # type: ignore[no-untyped-def]
        clock[0] += v * len(probe)
        return real_masses(m, probe, t, dev)

    monkeypatch.setattr(markov, "evaluate_kls", kls)
    monkeypatch.setattr(markov, "_masses", masses)
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    model = attention.AttentionConfig(vocab=2, max_len=12, d=8, layers=2, heads=1, positions="relative")
    for eval_n in (1000, 100, 20):
        cfg = markov.TransformerConfig(k=2, t=12, model=model, steps=10, batch=4, seeds=(0, 1), eval_n=eval_n)
        want = u * eval_n + v * min(markov.MASS_CHAINS, eval_n)
        assert markov.probe_transformer_eval(cfg, "cpu", chains=32) == pytest.approx(want, rel=1e-9)
    with pytest.raises(ValueError, match="chains"):
        markov.probe_transformer_eval(cfg, "cpu", chains=0)


def test_the_transformer_probe_times_the_real_trainer():
    """A tiny Markov transformer: the probe runs the real trainer and returns a finite time per update (positive
    unless the machine's noise exceeded the difference, which the plan then reports as not probed)."""
    from verify.train import attention

    model = attention.AttentionConfig(vocab=2, max_len=16, d=8, layers=2, heads=1, positions="relative")
    cfg = markov.TransformerConfig(k=2, t=16, model=model, steps=100, batch=4, seeds=(0,), eval_n=8)
    assert math.isfinite(markov.probe_transformer_step(cfg, "cpu", steps=2))
    assert math.isfinite(markov.probe_transformer_eval(cfg, "cpu")) and markov.probe_transformer_eval(cfg, "cpu") > 0
    with pytest.raises(ValueError, match="steps"):
        markov.probe_transformer_step(cfg, "cpu", steps=0)
    relu = modular_relu.ReluModularConfig(p=7, width=8, seeds=(0,), steps=100)
    assert math.isfinite(modular_relu.probe_relu_step(relu, "cpu", steps=2))


def test_relu_updates_are_scaled_by_their_own_probe(nothing_runs, monkeypatch):
    """Fig. 7.1a's ReLU network: its own probe (a fake: 4 times the model) scales its updates; the note names it."""
    from verify.sweep.cost import CellCost

    monkeypatch.setattr(
        modular_relu,
        "probe_relu_step",
        lambda cfg, device, steps=2: 4 * SPEED.step_seconds(CellCost(1, modular_relu.step_multiply_adds(cfg))),
    )
    claim = registry()["edelman-fig7.1a-relu-not-single-frequency"]
    (row,) = plan.make_plan([claim], "full", "cpu")[0]
    (run,) = plan._trainer_configs(claim.configs["full"])
    assert row.seconds == pytest.approx(SPEED.seconds(CellCost(run.steps, modular_relu.step_multiply_adds(run)), 4.0))
    assert "(x4 on every ReLU modular network run's updates)" in row.note


def test_polynomial_claims_are_scaled_by_probes_of_the_trainers_update_and_evaluation(nothing_runs, monkeypatch):
    """The claim with the cheapest modelled update is planned by the real trainer (a fake ``estimate_run`` here: 3
    times the model's update), and the claim with the longest modelled evaluations has one evaluated (a fake
    ``probe_evaluation``: 5 times the model's evaluation), once each; every polynomial-network row's updates are
    multiplied by the first ratio, its evaluations by the second, and its note names both probes. A probe that gives
    no time leaves the model's times for its part."""
    ids = ("edelman-thm7.9-training-A5", "edelman-thm7.7-training", "shi-fig4.1-split-single-frequency-k5")
    claims = [registry()[i] for i in ids]
    probe = plan._probe_polynomial
    model: dict[str, plan.Estimate] = {}
    monkeypatch.setattr(  # the model alone
        plan, "_probe_polynomial", lambda rows, found, device: model.update({f[2].id: f[0] for f in found})
    )
    modelled = dict(zip(ids, plan.make_plan(claims, "full", "cpu")[0]))
    monkeypatch.setattr(plan, "_probe_polynomial", probe)
    steps = {c.id: c.configs["full"].train.steps for c in claims}
    for i in ids:  # the model's parts add up to its time
        assert model[i].evaluations > 0 and model[i].per_evaluation > 0
        parts = steps[i] * model[i].per_update + model[i].evaluations * model[i].per_evaluation
        assert modelled[i].seconds == pytest.approx(parts, rel=1e-12)
    cheapest = min(ids, key=lambda i: model[i].per_update)
    longest = max(ids, key=lambda i: model[i].evaluations * model[i].per_evaluation)
    assert (cheapest, longest) == ("edelman-thm7.9-training-A5", "shi-fig4.1-split-single-frequency-k5")
    calls, eval_calls = [], []

    class Plan:
        seconds_per_step = 3 * model[cheapest].per_update

    def fake_estimate_run(task, degree, width, config, options, *, probe):  # type: ignore[no-untyped-def]
        calls.append((width, config))
        return Plan()

    points = {}

    def fake_probe_evaluation(task, degree, width, config, options):  # type: ignore[no-untyped-def]
        eval_calls.append((width, config))
        points["n"] = task.n_points
        return 5 * model[longest].per_evaluation / task.n_points

    monkeypatch.setattr(polynomial, "estimate_run", fake_estimate_run)
    monkeypatch.setattr(polynomial, "probe_evaluation", fake_probe_evaluation)
    rows = dict(zip(ids, plan.make_plan(claims, "full", "cpu")[0]))
    full = {i: registry()[i].configs["full"] for i in ids}
    assert calls == [(full[cheapest].width, full[cheapest].train)]
    assert eval_calls == [(full[longest].width, full[longest].train)] and points["n"] == 23**5
    for i in ids:
        expected = 3 * steps[i] * model[i].per_update + 5 * model[i].evaluations * model[i].per_evaluation
        assert rows[i].seconds == pytest.approx(expected, rel=1e-9)
        assert (
            f"probed now at {cheapest}" in rows[i].note
            and "(x3 on every polynomial-network claim's updates)" in rows[i].note
        )
        assert (
            f"probed now at {longest}" in rows[i].note
            and "(x5 on every polynomial-network claim's evaluations)" in rows[i].note
        )
    monkeypatch.setattr(plan, "_PROBED", {})
    Plan.seconds_per_step = None  # no time: the model stands
    monkeypatch.setattr(polynomial, "probe_evaluation", lambda *a, **k: 0.0)
    rows = dict(zip(ids, plan.make_plan(claims, "full", "cpu")[0]))
    assert all(rows[i].seconds == pytest.approx(modelled[i].seconds) and "probed now" not in rows[i].note for i in ids)


def _row(cid, seconds, basis="trainer cost model", note="model"):
    return plan.PlanRow(cid, "training", "a source", seconds, None, None, basis, note)


def test_affordable_runs_the_known_cheap_claims_without_a_current_record():
    """``--within``'s split: known and at most the limit, not archived; an unknown cost is never affordable; a record
    measured in the report directory (not the archive) does not count as archived; cheapest first."""
    rows = [
        _row("a", 3000.0),
        _row("b", 7200.0),  # at the limit: in
        _row("c", 7200.5),  # over
        _row("d", None, "unknown", "no estimator"),
        _row("e", 10.0, "measured", "archive, full record with this configuration, 2026-11-29"),
        _row("f", 20.0, "measured", "report directory, full record with this configuration, 2026-11-29"),
    ]
    run, left = plan.affordable(rows, 7200.0)
    assert [r.id for r in run] == ["f", "a", "b"]
    assert {r.id: why for r, why in left} == {
        "c": "planned 2.0 h > 2.0 h",
        "d": "cost unknown",
        "e": "a current record is archived",
    }
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="time limit"):
            plan.affordable(rows, bad)


def test_within_runs_exactly_the_affordable_claims(tmp_path, monkeypatch, capsys):
    """``tvk report --within 1h`` runs the report on the affordable claims only and says which; with none it runs
    nothing at all (never the whole selection) and exits 0; with --plan it is refused."""
    import verify.report.run as run_module

    rows = [_row("cheap", 60.0), _row("dear", 10 * 3600.0), _row("unknown", None, "unknown", "no estimator")]
    monkeypatch.setattr(cli, "_planned", lambda args: (rows, {}, "cpu"))
    calls = []

    def fake_run_report(out, *, only, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(only)
        return [{"id": "cheap", "verdict": "pass", "metadata": {}}], {"runtime_s": 1.0}

    monkeypatch.setattr(run_module, "run_report", fake_run_report)
    monkeypatch.setattr(cli, "_unexpected", lambda records: [])
    argv = ["report", "--scale", "full", "--within", "1h", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    assert calls == ["cheap"]
    err = capsys.readouterr().err
    assert "1 of 3 claim(s) to run" in err and "run   cheap: 60 s" in err and "1 cost unknown, 1 over the limit" in err
    assert cli.main([*argv[:4], "30s", "--out", str(tmp_path)]) == 0  # nothing within 30 s
    assert calls == ["cheap"] and "nothing to run" in capsys.readouterr().out
    assert cli.main([*argv, "--plan"]) == 2
    assert "--within chooses claims to run: not with --plan" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "fragment"),
    [
        (["--archive", "/dev/null"], "is not a directory"),
        (["--compare", "{tmp}/no-such-run"], "--compare: cannot read"),
        (["--out", "/dev/null/x"], "cannot write the report directory"),
        (["--figure-formats", "gif"], "--figure-formats must be"),
        (["-j", "100000"], "-j/--jobs 100000 is above the limit"),
    ],
)
def test_within_with_nothing_to_run_still_checks_the_other_options(option, fragment, tmp_path, monkeypatch, capsys):
    """A mistyped option failed only when --within left claims to run: with nothing within the limit the report
    printed 'nothing to run' and exited 0. The same checks as run_report's now come first (exit 2)."""
    monkeypatch.setattr(cli, "_planned", lambda args: ([_row("dear", 10 * 3600.0)], {}, "cpu"))
    argv = ["report", "--scale", "full", "--within", "1h", "--out", str(tmp_path / "out")]
    argv += [o.replace("{tmp}", str(tmp_path)) for o in option]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and "nothing to run" not in err


@pytest.mark.parametrize(("text", "seconds"), [("2h", 7200.0), ("90m", 5400.0), ("45s", 45.0), ("3600", 3600.0)])
def test_within_durations(text, seconds):
    assert cli._duration(text) == seconds


@pytest.mark.parametrize("text", ["0", "2x", "-1h", "", "h", "1e9999"])
def test_within_refuses_what_is_not_a_duration(text):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match="must be a duration > 0"):
        cli._duration(text)


def test_update_seconds_cancels_the_set_up(monkeypatch):
    """``update_seconds`` on a fake clock (a set-up of 2 s and 0.25 s an update): exactly 0.25, after a warm-up of
    one update and runs of 3 and 9; steps below 1 are refused."""
    import time

    from verify.runtime.memory import update_seconds

    clock, runs = [0.0], []

    def train(n):  # type: ignore[no-untyped-def]
        runs.append(n)
        clock[0] += 2.0 + 0.25 * n

    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    assert update_seconds(train, 3) == pytest.approx(0.25, rel=1e-12) and runs == [1, 3, 9]
    with pytest.raises(ValueError, match="steps"):
        update_seconds(train, 0)


CH8_K2 = (
    "edelman-ch8-transformer-phases",
    "edelman-ch8-transformer-induction-head",
    "edelman-ch8-transformer-previous-token",
)
CH8_K3 = "edelman-ch8-transformer-phases-k3"


def test_a_training_run_several_claims_share_is_counted_once_in_the_total(nothing_runs):
    """Edelman Ch. 8's three k = 2 transformer claims judge one run (one module, one configuration: one work unit of
    the report, trained once); each row keeps its own time, but the total counts that run once: the oracle is the
    sum over the distinct (module, configuration) pairs of the claims, read from the registry, not from the plan."""
    from verify.claims.external import claim_module

    reg = registry()
    claims = [reg[c] for c in (*CH8_K2, CH8_K3)]
    rows, _ = plan.make_plan(claims, "full", "cpu")
    by_id = {r.id: r for r in rows}
    distinct = {(claim_module(c), c.configs["full"]): by_id[c.id].seconds for c in reversed(claims)}
    assert len(distinct) == 2  # the premise: the k = 2 claims share their module and configuration, k = 3 does not
    first = by_id[CH8_K2[0]]
    assert first.shared == () and by_id[CH8_K3].shared == ()
    for cid in CH8_K2[1:]:
        assert by_id[cid].shared == ((CH8_K2[0], by_id[cid].seconds),)  # the whole run: it trains nothing else
    tot = plan.totals(rows)
    assert tot["seconds_known_total"] == pytest.approx(sum(r.seconds for r in rows), rel=1e-12)
    assert tot["seconds_once_total"] == pytest.approx(sum(distinct.values()), rel=1e-12)
    text = plan.format_plan(rows, {"memory": "m"}, "full", "cpu")
    assert "with the runs claims share counted once" in text.splitlines()[-1]
    doc = plan.plan_document(rows, {"memory": "m"}, "full", "cpu")
    assert json.loads(json.dumps(doc))["claims"][1]["shared"] == [[CH8_K2[0], by_id[CH8_K2[1]].seconds]]
    alone = plan.make_plan(claims[1:2], "full", "cpu")[0]  # planned alone, a claim pays its run
    assert alone[0].shared == () and plan.once_seconds(alone) == alone[0].seconds


def test_a_claim_reading_anothers_grid_shares_its_cells_only_with_that_claim(nothing_runs):
    """Edelman Finding (3) reads the Fig. 6.1 Pareto grid's cells (``reads_grid``): planned with the grid's claim it
    adds nothing to the once-counted total; planned alone, its cells are its own."""
    from verify.sweep.grid import grid_read_by

    reg = registry()
    reader = reg["edelman-ch6-finding3-sparse-vs-dense"]
    owner = reg[grid_read_by(reader).claim_id]
    assert owner.id == "edelman-ch6-fig6.1-pareto-grid" and grid_read_by(owner).claim_id == owner.id
    rows, _ = plan.make_plan([owner, reader], "full", "cpu")
    assert rows[0].seconds == rows[1].seconds is not None  # the same cells, the same estimate
    assert rows[0].shared == () and rows[1].shared == ((owner.id, rows[1].seconds),)
    assert plan.once_seconds(rows) == rows[0].seconds
    assert plan.once_seconds(rows[1:]) == rows[1].seconds  # without the grid's claim, the reader pays for the cells


def test_once_seconds_drops_a_shared_part_only_when_its_payer_is_counted():
    """``once_seconds`` over hand-made rows: a part shared with a claim outside the rows, or with one of unknown
    time, is paid by the row itself; unknown times are never added."""
    a, b = _row("a", 100.0), replace(_row("b", 80.0), shared=(("a", 70.0), ("z", 5.0)))
    u = replace(_row("u", None, "unknown", "no estimator"), shared=(("a", 1.0),))
    assert plan.once_seconds([a, b, u]) == 100.0 + 80.0 - 70.0
    assert plan.once_seconds([b]) == 80.0
    assert plan.once_seconds([replace(a, seconds=None), b]) == 80.0
    text = plan.format_plan([a, replace(b, shared=())], {"memory": "m"}, "full", "cpu")
    assert "counted once" not in text  # nothing shared: one total


def test_the_split_claims_that_share_a_polynomial_run_count_it_once(nothing_runs):
    """Shi Fig. 4.1 and 4.2 judge one training run per k (one work unit of the report): the later claim of each pair
    lists the earlier one's time as paid by it, and the plan's total counts each run once (it counted them twice)."""
    ids = (
        "shi-fig4.1-split-single-frequency-k3",
        "shi-fig4.1-split-single-frequency-k5",
        "shi-fig4.2-split-coverage-k3",
        "shi-fig4.2-split-coverage-k5",
    )
    claims = [registry()[i] for i in ids]
    assert plan.work_unit(claims[0], "full") == plan.work_unit(claims[2], "full") != plan.work_unit(claims[1], "full")
    rows = dict(zip(ids, plan.make_plan(claims, "full", "cpu")[0]))
    for first, second in ((ids[0], ids[2]), (ids[1], ids[3])):
        assert rows[first].shared == () and rows[first].seconds == rows[second].seconds > 0
        assert rows[second].shared == ((first, rows[first].seconds),)
    assert plan.once_seconds(list(rows.values())) == pytest.approx(rows[ids[0]].seconds + rows[ids[1]].seconds)
