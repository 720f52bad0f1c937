"""One RunOptions reaches every trainer (issue 27): a run-wide dtype, device and seed offset are applied by each of
them and recorded in the running claim's record (``metadata["training"]``), for a claim of every trainer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from numerics.modular import ModularTask
from theory import decision_lists as td
from verify.claims import Claim, Observation, RunContext, run_claim
from verify.claims.judges import Predicate
from verify.runtime.options import RunOptions
from verify.train import attention as va
from verify.train import decision_lists as vd
from verify.train import local_signal as vls
from verify.train import lsa as vl
from verify.train import markov as vm
from verify.train import modular_relu as vmr
from verify.train import modular_transformer as vmt
from verify.train import polynomial as vtrain
from verify.train import sparse_parity as vsp
from verify.train import sparse_variable as vsv

SV_MODEL = vsv.ModelConfig(d=8, heads=2, mlp_ratio=1)
ATTN = va.AttentionConfig(vocab=2, max_len=6, d=8, layers=1, heads=1, mlp=0)

#: A tiny run of every trainer (name as records show it, the call with the run's options).
TRAINERS: dict[str, Callable[[RunOptions], Any]] = {
    "polynomial": lambda o: vtrain.train(
        ModularTask(3, 2), 2, 4, vtrain.TrainConfig(steps=2, lr=0.01, seeds=(0, 1)), o
    ),
    "sparse-parity": lambda o: vsp.train_parity(
        vsp.SparseParityConfig(n=6, k=2, width=4, steps=2, seeds=(0,), n_val=16), o
    ),
    "lsa-population": lambda o: vl.train_population(
        vl.PopulationConfig(((2.0, 0.0), (0.0, 1.0)), 5, 1, (0,), steps=2, polish_steps=0), o
    ),
    "lsa-sgd-full": lambda o: vl.train_sgd(
        vl.SGDConfig(((2.0, 0.0), (0.0, 1.0)), 5, 1, (0,), model="full", steps=2, batch=4), o
    ),
    "markov-minimal": lambda o: vm.train_minimal(
        vm.MinimalModelConfig(k=2, t=6, steps=2, batch=2, seeds=(0,), eval_every=1, eval_n=8), o
    ),
    "markov-transformer": lambda o: vm.train_transformer(
        vm.TransformerConfig(k=2, t=6, model=ATTN, steps=2, batch=2, seeds=(0,), eval_every=1, eval_n=8), o
    ),
    "sparse-variable-and": lambda o: vsv.train_and(
        vsv.AndRunConfig(T=6, m=12, trials=(0,), restarts=1, steps=2, n_val=8, eval_every=1, model=SV_MODEL), o
    ),
    "sparse-variable-parity": lambda o: vsv.train_parity(
        vsv.ParityRunConfig(T=6, s=2, seeds=(0,), steps=2, batch=4, n_test=8, eval_every=1, model=SV_MODEL), o
    ),
    "sum-transformer": lambda o: vmt.train_sum_transformer(
        vmt.SumTransformerConfig(p=5, k=2, d=8, heads=2, head_width=4, mlp=8, steps=2, eval_every=1, seeds=(0,)), o
    ),
    "local-signal-reduced": lambda o: vls.train_signal(
        vls.SignalTrainConfig(k=20, d=3, batch=4, steps=2, seeds=(0,), eval_every=1, n_test=8), o
    ),
    "relu-modular": lambda o: vmr.train_relu_modular(vmr.ReluModularConfig(p=5, width=4, seeds=(0,), steps=2), o),
    "decision-lists-population-gd": lambda o: vd.population_gd_w(
        vd.PopulationGDConfig((td.cyclic_task(8),), 3, (2.0,), (0.5,), 2, (0,)), o
    ),
    "decision-lists-one-step": lambda o: vd.one_gd_step_v(
        td.cyclic_task(8), 3, 1.0, v0_std=0.1, samples=40, chunks=2, seed=0, options=o
    ),
}


def _claim(name: str, run: Callable[[RunOptions], Any]) -> Claim:
    """A training claim whose observation is one tiny run of the trainer ``name``."""

    def observe(config: Any, ctx: RunContext) -> Observation:
        run(ctx.run_options())
        return Observation(1.0)

    return Claim(
        id=f"test-run-options-{name}",
        source="test",
        statement=f"the {name} trainer records the run's options",
        kind="training",
        configs={"quick": None},
        predict=lambda cfg: 1.0,
        observe=observe,
        judge=Predicate(lambda p, obs: True, "the run finished"),
    )


@pytest.mark.parametrize("name", sorted(TRAINERS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_run_wide_dtype_reaches_every_trainer_and_its_record(name: str, dtype: str) -> None:
    """``tvk report --dtype float32`` (and float64) trains every trainer in that dtype and each record says so."""
    ctx = RunContext(options=RunOptions(device="cpu", dtype=dtype))
    record = run_claim(_claim(name, TRAINERS[name]), ctx)
    assert record.verdict == "pass", record.reason
    runs = record.metadata["training"]
    assert runs and all(r["dtype"] == dtype and r["device"] == "cpu" for r in runs), runs
    assert {r["trainer"] for r in runs} == {name}


@pytest.mark.parametrize("name", ["polynomial", "sparse-parity", "markov-minimal", "local-signal-reduced"])
def test_a_seed_offset_shifts_the_seeds_every_trainer_uses(name: str) -> None:
    """``--seed-offset N`` runs the disjoint seed set i + N, and the record lists the seeds that ran."""
    base = run_claim(_claim(name, TRAINERS[name]), RunContext(options=RunOptions(device="cpu")))
    moved = run_claim(_claim(name, TRAINERS[name]), RunContext(options=RunOptions(device="cpu", seed_offset=1000)))
    seeds = [r["seeds"] for r in base.metadata["training"]]
    assert [r["seeds"] for r in moved.metadata["training"]] == [[s + 1000 for s in ss] for ss in seeds]


def test_the_trainer_default_policy_is_recorded() -> None:
    """Without a run-wide dtype each trainer keeps its own policy (float64 on the CPU for the polynomial networks,
    float32 for the ReLU control), and the record says which ran."""
    ctx = RunContext(options=RunOptions(device="cpu"))
    poly = run_claim(_claim("polynomial", TRAINERS["polynomial"]), ctx).metadata["training"]
    relu = run_claim(_claim("relu-modular", TRAINERS["relu-modular"]), ctx).metadata["training"]
    assert poly[0]["dtype"] == "float64" and relu[0]["dtype"] == "float32"


def test_float32_changes_the_numbers_not_only_the_label() -> None:
    """The dtype is really applied: a float32 run's weights are float32 values (they differ from the float64 run's
    in the last digits)."""
    runs = {d: TRAINERS["polynomial"](RunOptions(device="cpu", dtype=d)) for d in ("float32", "float64")}
    assert runs["float32"].dtype == "float32" and runs["float64"].dtype == "float64"
    w32, w64 = runs["float32"].networks[0].W, runs["float64"].networks[0].W
    assert np.all(np.asarray(w32, dtype=np.float32) == w32) and not np.array_equal(w32, w64)


@pytest.mark.parametrize("name", ["polynomial", "sparse-parity"])
def test_a_tf32_run_says_tf32_in_its_result(monkeypatch, name: str) -> None:
    """The results of the two trainers that carry a ``dtype`` said "float32" for a TF32 run (the storage dtype),
    while the record said tf32. TF32 needs CUDA: here the setting's resolution is made to answer tf32 on the CPU
    (where the TF32 switch of CUDA's products changes nothing)."""
    monkeypatch.setattr(RunOptions, "dtype_name", lambda self, *args, **kw: "tf32")
    assert TRAINERS[name](RunOptions(device="cpu")).dtype == "tf32"


def test_a_seed_offset_also_moves_the_polynomial_minibatch_order() -> None:
    """The minibatch order (``data_seed``, shared by an ensemble's seeds) is a random source of a minibatch run: a
    fresh seed set draws a fresh order. Seed 1000 trained with offset 0 and with offset 1000 starts from the same
    initialisation; only the order can make the two runs differ."""
    task = ModularTask(5, 2)
    cfg = vtrain.TrainConfig(steps=5, lr=0.05, batch_size=4, seeds=(1000,))
    plain = vtrain.train(task, 2, 6, cfg, RunOptions(device="cpu"))
    moved = vtrain.train(
        task, 2, 6, vtrain.TrainConfig(**{**cfg.__dict__, "seeds": (0,)}), RunOptions(device="cpu", seed_offset=1000)
    )
    assert moved.config.seeds == (1000,) and moved.config.data_seed == 1000
    assert plain.config.data_seed == 0
    assert not np.array_equal(plain.networks[0].U, moved.networks[0].U)


@dataclass(frozen=True)
class _Instances:
    seeds: tuple[int, ...] = (0, 1)


def _seeded_claim(seeded: bool, config: Any = _Instances()) -> Claim:
    """A claim whose prediction and observation are the seeds they see, and the offset its trainers would get."""
    return Claim(
        id=f"test-seeded-{seeded}",
        source="test",
        statement="each seed draws an instance",
        kind="training",
        configs={"quick": config},
        predict=lambda cfg: list(cfg.seeds),
        observe=lambda cfg, ctx: Observation(list(cfg.seeds), details={"trainer_offset": ctx.options.seed_offset}),
        judge=Predicate(lambda p, obs: p == obs.value, "predicted for the instances observed"),
        seeded=seeded,
    )


def test_a_seeded_claim_draws_fresh_instances_under_a_seed_offset() -> None:
    """``Claim.seeded``: the configuration's seeds draw the instances the prediction is made for (Karp Ch. 4's random
    tasks), so ``--seed-offset`` shifts them before predicting and observing, and the trainers get no second shift."""
    ctx = RunContext(options=RunOptions(device="cpu", seed_offset=100))
    record = run_claim(_seeded_claim(True), ctx)
    assert record.verdict == "pass" and record.predicted == [100, 101] == record.config["seeds"]
    assert record.details["trainer_offset"] == 0
    plain = run_claim(_seeded_claim(False), ctx)  # the default: the configuration is the one written
    assert plain.predicted == [0, 1] and plain.details["trainer_offset"] == 100


def test_seeded_needs_configurations_with_seeds() -> None:
    with pytest.raises(ValueError, match="seeded needs configurations"):
        _seeded_claim(True, config=None)


def test_a_run_shared_by_two_claims_is_in_both_records() -> None:
    """``shared_run``: the second claim judging a memoised run (Thm 4.4's two GD claims) used to get no
    ``metadata.training``; it now gets the settings the run noted for the first."""
    from verify.runtime.claim_run import claim_run, log_to, note_resumed, note_training, shared_run

    calls: list[int] = []

    @shared_run(maxsize=1)
    def train(seed: int) -> int:
        calls.append(seed)
        note_training({"trainer": "toy", "device": "cpu", "dtype": "float64", "seeds": [seed]})
        with log_to(lambda message: None):
            note_resumed(5, "toy.ckpt")
        return seed * 10

    with claim_run("first", "h") as first:
        assert train(3) == 30
    with claim_run("second", "h") as second:
        assert train(3) == 30
    assert calls == [3] and second.trainings == first.trainings == [
        {"trainer": "toy", "device": "cpu", "dtype": "float64", "seeds": [3]}
    ]
    assert second.resumed == first.resumed == [{"step": 5, "file": "toy.ckpt"}]
    train(4)  # maxsize 1: the run of seed 3 is forgotten, and trained again when asked for
    train(3)
    assert calls == [3, 4, 3]
