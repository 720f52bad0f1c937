"""The resolved training dtype reaches the arithmetic and the memory check of the sparse-parity, ReLU modular and
local-signal trainers (verify.runtime.options.RunOptions.configure): float64 runs compute in float64 and size
their memory check with 8-byte floats."""

from __future__ import annotations

import numpy as np
import pytest

from verify.runtime.options import RunOptions
from verify.train import local_signal as vls
from verify.train import modular_relu as vmr
from verify.train import sparse_parity as vsp

CPU = RunOptions(device="cpu")


def test_sparse_parity_float64_weights_are_not_float32_values() -> None:
    """The float32 run's final weights are float32 values, the float64 run's are not (same start, same data)."""
    cfg = vsp.SparseParityConfig(n=6, k=2, width=4, steps=3, seeds=(0,), n_val=16, keep_params=True)
    runs = {d: vsp.train_parity(cfg.replace(dtype=d), CPU) for d in ("float32", "float64")}
    w32, w64 = (np.asarray(runs[d].params["W"]) for d in ("float32", "float64"))
    assert np.array_equal(w32.astype(np.float32), w32)
    assert not np.array_equal(w64.astype(np.float32), w64)
    np.testing.assert_allclose(w32, w64, atol=1e-5)


def test_relu_modular_float64_run_differs_from_the_float32_run_by_round_off() -> None:
    """Same float32-representable start: a float64 run's losses differ from the default float32 run's only in
    round-off."""
    cfg = vmr.ReluModularConfig(p=5, width=4, seeds=(0,), steps=3, eval_every=1)
    f32 = vmr.train_relu_modular(cfg, CPU).history
    f64 = vmr.train_relu_modular(cfg, RunOptions(device="cpu", dtype="float64")).history
    l32, l64 = (np.array([rec["loss"] for rec in h]) for h in (f32, f64))
    assert not np.array_equal(l32, l64)
    np.testing.assert_allclose(l32, l64, rtol=1e-5)


class _Checked(Exception):
    """Raised by the patched memory check once it has seen the estimate."""


@pytest.mark.parametrize("dtype, itemsize", [("float64", 8), ("float32", 4)])
@pytest.mark.parametrize(
    "module, config",
    [
        (vmr, vmr.ReluModularConfig(p=5, width=4, seeds=(0,), steps=3)),
        (vls, vls.SignalTrainConfig(k=20, d=3, batch=4, steps=2, seeds=(0,), eval_every=1, n_test=8)),
    ],
    ids=["relu-modular", "local-signal"],
)
def test_the_memory_check_counts_bytes_of_the_training_dtype(monkeypatch, module, config, dtype, itemsize) -> None:
    """The bytes checked against free memory are the estimate at the run's float size."""
    seen = []

    def preflight(need, *args, **kwargs):
        seen.append(need)
        raise _Checked

    monkeypatch.setattr(module, "preflight", preflight)
    run = module.train_relu_modular if module is vmr else module.train_signal
    with pytest.raises(_Checked):
        run(config, RunOptions(device="cpu", dtype=dtype))
    assert seen == [module.memory_estimate(config, itemsize)]
