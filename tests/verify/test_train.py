"""Unit tests of the torch layer: devices, the batched polynomial network and the trainer (fast, CPU)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from numerics.margins import HomogeneousNetwork, evaluate
from numerics.modular import ModularTask, construction_network
from numerics.parity import SparseParityTask
from theory.modular import max_margin
from verify.runtime.device import resolve_device
from verify.runtime.divergence import TrainingDiverged
from verify.runtime.options import RunOptions
from verify.train.homogeneous import HomogeneousEnsemble, init_weights
from verify.train.polynomial import (
    CheckpointMismatchError,
    TrainConfig,
    doubling_steps,
    ensemble_metrics,
    learning_rate,
    train,
)

TASK = ModularTask(5, 2)
BASE = TrainConfig(steps=30, lr=5e-3, lam=1e-3, seeds=(3, 5), eval_every=10, dtype="float64", num_threads=1)


def _data(task=TASK) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = task.batch(0, task.n_points)
    return torch.as_tensor(x), torch.as_tensor(y)


# ------------------------------------------------------------------------------------------ device


def test_resolve_device_cpu_and_auto() -> None:
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert RunOptions().dtype_name("cpu") == "float64" and RunOptions().dtype_name("cuda") == "float32"
    assert RunOptions(dtype="float32").dtype_name("cpu") == "float32"
    assert RunOptions().dtype_name("cpu", default="float32") == "float32"
    assert RunOptions().dtype_name("cpu", configured="float32") == "float32"
    assert RunOptions(dtype="float64").dtype_name("cpu", configured="float32") == "float64"  # run-wide wins
    with pytest.raises(ValueError, match="unknown device"):
        resolve_device("tpu")
    with pytest.raises(ValueError, match="dtype must be one of"):
        RunOptions(dtype="float16")
    with pytest.raises(ValueError, match=r"tf32.*CUDA"):
        RunOptions(dtype="tf32").dtype_name("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_cuda_requested_without_cuda_raises() -> None:
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        resolve_device("cuda")


# ------------------------------------------------------------------------------------------ model


def test_forward_shapes_and_agreement_with_numpy() -> None:
    model = HomogeneousEnsemble.from_seeds([0, 1, 2], width=7, n_blocks=2, block_size=5, n_classes=5, degree=2)
    x, _ = _data()
    F = model(x)
    assert F.shape == (3, TASK.n_points, 5)
    assert model.norm_power().shape == (3,)
    nets = model.networks()
    assert len(nets) == 3 and all(isinstance(n, HomogeneousNetwork) for n in nets)
    for s, net in enumerate(nets):
        np.testing.assert_allclose(F[s].detach().numpy(), net.logits(x.numpy()), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(model.norm_power()[s].item(), net.norm_power(), rtol=1e-12)
    nets[0].U[:] = 0.0  # copies, not views
    assert model.U.abs().sum() > 0


def test_dense_inputs_equal_one_hot_indices() -> None:
    net = construction_network(5, 2)
    model = HomogeneousEnsemble.from_networks([net, net.scaled(0.5)])
    x, _ = _data()
    dense = torch.nn.functional.one_hot(x, 5).to(torch.float64)
    torch.testing.assert_close(model(dense), model(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model(x)[0].detach().numpy(), net.logits(x.numpy()), atol=1e-12)


def test_dense_block_task_matches_numpy() -> None:
    task = SparseParityTask(4, (0, 1))
    model = HomogeneousEnsemble.from_seeds([0, 1], width=4, n_blocks=1, block_size=task.n, n_classes=2, degree=2)
    x, _ = task.batch(0, task.n_points)
    F = model(torch.as_tensor(x))
    for s, net in enumerate(model.networks()):
        np.testing.assert_allclose(F[s].detach().numpy(), net.logits(x), rtol=1e-12, atol=1e-12)


def test_seed_init_is_independent_of_the_ensemble() -> None:
    alone = HomogeneousEnsemble.from_seeds([5], width=6, n_blocks=2, block_size=5, n_classes=5, degree=2)
    ens = HomogeneousEnsemble.from_seeds([3, 5, 7], width=6, n_blocks=2, block_size=5, n_classes=5, degree=2)
    assert torch.equal(alone.U[0], ens.U[1]) and torch.equal(alone.W[0], ens.W[1])
    assert not torch.equal(ens.U[0], ens.U[1])
    U, W = init_weights(5, 6, 2, 5, 5)
    assert torch.equal(U, alone.U[0]) and torch.equal(W, alone.W[0])
    assert abs(float(U.std()) - 1 / np.sqrt(5)) < 0.15


def test_batched_gradients_equal_per_seed_gradients() -> None:
    x, y = _data()
    ens = HomogeneousEnsemble.from_seeds([0, 1, 2], width=8, n_blocks=2, block_size=5, n_classes=5, degree=2)

    def objective(model: HomogeneousEnsemble) -> torch.Tensor:
        ce = torch.nn.functional.cross_entropy(model(x).transpose(1, 2), y.expand(model.n_seeds, -1), reduction="none")
        return (ce.mean(dim=1) + 1e-3 * model.norm_power()).sum()

    objective(ens).backward()
    for s in range(3):
        single = HomogeneousEnsemble(ens.U.detach()[s : s + 1].clone(), ens.W.detach()[s : s + 1].clone(), 2)
        objective(single).backward()
        torch.testing.assert_close(ens.U.grad[s], single.U.grad[0], rtol=1e-12, atol=1e-14)
        torch.testing.assert_close(ens.W.grad[s], single.W.grad[0], rtol=1e-12, atol=1e-14)


def test_ensemble_metrics_of_the_construction_equal_gamma_star() -> None:
    p, k = 5, 3
    task = ModularTask(p, k)
    net = construction_network(p, k)
    model = HomogeneousEnsemble.from_networks([net], dtype=torch.float32)
    x, y = _data(task)
    gamma = float(max_margin(p, k))
    rec = ensemble_metrics(model, x, y, reference_margin=gamma)
    report = evaluate(net, task)
    assert rec["accuracy"] == [1.0]
    np.testing.assert_allclose(rec["margin"][0], report.min_margin, rtol=1e-6)
    np.testing.assert_allclose(rec["ratio"][0], 1.0, rtol=1e-6)


# ------------------------------------------------------------------------------------------ config and schedule


def test_config_round_trip_and_validation() -> None:
    cfg = BASE.replace(lr_doublings=doubling_steps(), betas=(0.9, 0.98))
    data = json.loads(json.dumps(cfg.to_dict()))
    assert TrainConfig.from_dict(data) == cfg
    with pytest.raises(ValueError, match="optimizer"):
        TrainConfig(steps=1, lr=1.0, optimizer="lbfgs")
    with pytest.raises(ValueError, match="seeds"):
        TrainConfig(steps=1, lr=1.0, seeds=(1, 1))
    with pytest.raises(ValueError, match="sorted"):
        TrainConfig(steps=1, lr=1.0, lr_doublings=(20, 10))


def test_edelman_schedule() -> None:
    """Edelman App D.2: 0.05, doubled at 1k, 2k, ..., 10k, ends at 0.05 * 2^10 = 51.2."""
    cfg = TrainConfig(steps=40_000, lr=0.05, optimizer="sgd", lr_doublings=doubling_steps())
    assert cfg.lr_doublings == tuple(range(1000, 10_001, 1000))
    assert learning_rate(cfg, 0) == 0.05 and learning_rate(cfg, 999) == 0.05
    assert learning_rate(cfg, 1000) == 0.1
    assert learning_rate(cfg, 39_999) == pytest.approx(51.2)
    warm = TrainConfig(steps=100, lr=1.0, warmup_steps=10)
    assert learning_rate(warm, 0) == pytest.approx(0.1) and learning_rate(warm, 9) == 1.0


# ------------------------------------------------------------------------------------------ trainer


def test_train_result_shapes_and_history() -> None:
    gamma = float(max_margin(5, 2))
    threads = torch.get_num_threads()
    res = train(TASK, 2, 8, BASE, reference_margin=gamma)
    assert torch.get_num_threads() == threads  # num_threads applies to the run only
    assert len(res.networks) == 2 and res.networks[0].U.shape == (8, 2, 5)
    assert list(res.steps) == [0, 10, 20, 30]
    assert res.metric("ratio").shape == (4, 2)
    assert res.steps_done == 30 and not res.stopped_early and res.device == "cpu" and res.dtype == "float64"
    for s, net in enumerate(res.networks):  # history agrees with the numpy evaluation of the final networks
        np.testing.assert_allclose(res.final["normalized_margin"][s], evaluate(net, TASK).normalized_margin, rtol=1e-9)
    json.dumps(res.to_dict())


def test_ensemble_trains_each_seed_as_if_alone() -> None:
    ens = train(TASK, 2, 8, BASE)
    alone = train(TASK, 2, 8, BASE.replace(seeds=(5,)))
    np.testing.assert_allclose(ens.networks[1].U, alone.networks[0].U, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ens.networks[1].W, alone.networks[0].W, rtol=1e-9, atol=1e-12)


def test_minibatches_are_shared_across_ensemble_membership() -> None:
    cfg = BASE.replace(batch_size=7, optimizer="sgd", lr=0.05)
    ens = train(TASK, 2, 8, cfg)
    alone = train(TASK, 2, 8, cfg.replace(seeds=(5,)))
    np.testing.assert_allclose(ens.networks[1].U, alone.networks[0].U, rtol=1e-9, atol=1e-12)


def test_chunked_gradients_equal_full_batch() -> None:
    full = train(TASK, 2, 8, BASE)
    chunked = train(TASK, 2, 8, BASE.replace(chunk_size=7))
    for a, b in zip(full.networks, chunked.networks):
        np.testing.assert_allclose(a.U, b.U, rtol=1e-9, atol=1e-12)


def test_dense_task_trains() -> None:
    res = train(SparseParityTask(4, (0, 1)), 2, 6, BASE.replace(steps=20, lr=0.05))
    assert res.metric("loss")[-1].max() < res.metric("loss")[0].max()


class _Interrupt(Exception):
    pass


def test_resume_gives_the_uninterrupted_result(tmp_path) -> None:
    cfg = BASE.replace(checkpoint_every=10)
    full = train(TASK, 2, 8, cfg)
    path = tmp_path / "run.ckpt"

    def crash(step: int, model: HomogeneousEnsemble, record: dict) -> None:
        if step == 20:
            raise _Interrupt

    with pytest.raises(_Interrupt):
        train(TASK, 2, 8, cfg, RunOptions(checkpoint_path=str(path)), callback=crash)
    assert path.exists() and not list(tmp_path.glob("*.tmp-*"))
    resumed = train(TASK, 2, 8, cfg, RunOptions(checkpoint_path=str(path)))
    assert resumed.resumed_from == 20
    assert resumed.history == full.history
    for a, b in zip(full.networks, resumed.networks):
        np.testing.assert_array_equal(a.U, b.U)
        np.testing.assert_array_equal(a.W, b.W)
    again = train(TASK, 2, 8, cfg, RunOptions(checkpoint_path=str(path)))  # finished checkpoint: no training
    assert again.resumed_from == 30 and again.history == full.history


def test_checkpoint_of_another_config_is_refused(tmp_path) -> None:
    path = tmp_path / "run.ckpt"
    train(TASK, 2, 8, BASE.replace(steps=10), RunOptions(checkpoint_path=str(path)))
    with pytest.raises(CheckpointMismatchError, match="lr"):
        train(TASK, 2, 8, BASE.replace(steps=10, lr=1e-2), RunOptions(checkpoint_path=str(path)))
    with pytest.raises(CheckpointMismatchError, match="width"):
        train(TASK, 2, 9, BASE.replace(steps=10), RunOptions(checkpoint_path=str(path)))
    with pytest.raises(CheckpointMismatchError, match="data_sha1"):
        train(ModularTask(7, 2), 2, 8, BASE.replace(steps=10), RunOptions(checkpoint_path=str(path)))
    longer = train(TASK, 2, 8, BASE.replace(steps=20), RunOptions(checkpoint_path=str(path)))  # steps may grow
    assert longer.resumed_from == 10 and longer.steps_done == 20


def test_callback_can_stop_training() -> None:
    res = train(TASK, 2, 8, BASE, callback=lambda step, model, rec: step >= 10)
    assert res.stopped_early and res.steps_done == 10


def test_nan_guard_names_step_and_seed() -> None:
    with pytest.raises(
        TrainingDiverged, match=r"^polynomial training diverged at step 0 for seed\(s\) \[3, 5\]: "
    ) as info:
        train(TASK, 2, 8, BASE.replace(init_std=1e200))
    assert info.value.trainer == "polynomial" and info.value.step == 0 and info.value.seeds == [3, 5]
    assert info.value.remedy and info.value.remedy in str(info.value)


def test_nan_guard_catches_blow_up_during_training() -> None:
    cfg = BASE.replace(optimizer="sgd", lr=1e6, lam=0.0, steps=50)
    with pytest.raises(TrainingDiverged) as info:
        train(TASK, 2, 8, cfg)
    assert info.value.seeds and set(info.value.seeds) <= set(cfg.seeds) and 0 <= info.value.step < 50


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_float32_training_matches_cpu_start() -> None:
    cfg = BASE.replace(dtype=None)
    res = train(TASK, 2, 8, cfg, RunOptions(device="auto"), reference_margin=float(max_margin(5, 2)))
    assert res.device.startswith("cuda") and res.dtype == "float32"
    cpu = train(TASK, 2, 8, BASE, RunOptions(device="cpu"), reference_margin=float(max_margin(5, 2)))
    np.testing.assert_allclose(res.metric("ratio")[0], cpu.metric("ratio")[0], rtol=1e-5)
