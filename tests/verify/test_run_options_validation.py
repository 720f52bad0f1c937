"""RunOptions' validation (verify/runtime/options.py) at its documented bounds, and the storage dtype of a TF32 run,
without training anything. Written for the mutation audit: each bound below let an off-by-one mutant through."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from verify.runtime.options import SEED_OFFSET_LIMIT, RunOptions


def test_checkpoint_every_is_none_or_an_integer_of_at_least_one():
    assert RunOptions(checkpoint_every=1).checkpoint_every == 1
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ValueError, match="checkpoint_every"):
            RunOptions(checkpoint_every=bad)


def test_seed_offset_is_an_integer_in_zero_to_two_to_the_31():
    """[0, 2^31): the shifted seeds stay valid for every generator the trainers seed; a bool is not an offset."""
    assert RunOptions(seed_offset=0).seed_offset == 0
    assert RunOptions(seed_offset=SEED_OFFSET_LIMIT - 1).seed_offset == 2**31 - 1
    for bad in (-1, SEED_OFFSET_LIMIT, True, 1.0):
        with pytest.raises(ValueError, match="seed_offset"):
            RunOptions(seed_offset=bad)


def test_the_flags_are_booleans():
    for field in ("progress", "ignore_memory_check"):
        with pytest.raises(ValueError, match="must be booleans"):
            RunOptions(**{field: 1})


@dataclass(frozen=True)
class _Config:
    seeds: tuple[int, ...] = (0, 1)
    dtype: str = "float64"


def test_a_tf32_run_stores_float32_in_the_configuration(monkeypatch):
    """configure: a run-wide tf32 replaces a configuration's dtype by its storage dtype, float32, while the setting
    says tf32 (TF32 needs CUDA: the setting's resolution is made to answer tf32 here)."""
    monkeypatch.setattr(RunOptions, "dtype_name", lambda self, *args, **kw: "tf32")
    config, setting = RunOptions(device="cpu", dtype="tf32").configure(_Config(), "test")
    assert config.dtype == "float32" and setting.dtype_name == "tf32"
    config, _ = RunOptions(device="cpu", dtype="float32", seed_offset=5).configure(_Config(), "test")
    assert config.dtype == "float32" and config.seeds == (5, 6)
