"""numerics.scaling's block arithmetic (Edelman Sec. 5.3.2: one median t_c per block of seeds), checked against
plain Python: chunks counted by slicing a list, medians by :func:`statistics.median`. The two seed-block configs of
the Fig. 5.1 and 5.4 claims refuse a block size that does not divide their seeds with the same error."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.scaling import block_count, block_medians
from theory._checks import InputError
from verify.claims.sparse_parity.scaling import LocalSlopeConfig
from verify.claims.sparse_parity.width import WidthConfig


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(1, 12))
def test_block_count_is_the_number_of_full_slices_or_refuses(n: int, block: int) -> None:
    items = list(range(n))
    chunks = [items[i : i + block] for i in range(0, n, block)]
    if all(len(c) == block for c in chunks):
        assert block_count(n, block) == len(chunks)
    else:
        with pytest.raises(InputError, match=f"{n} seeds do not split into blocks of {block}") as e:
            block_count(n, block, "seeds")
        assert e.value.param == "block"


@pytest.mark.parametrize(("n", "block", "param"), [(4, 0, "block"), (4, -2, "block"), (-4, 2, "n"), (4, 1.5, "block")])
def test_block_count_refuses_sizes_that_are_not_counts(n: int, block: float, param: str) -> None:
    with pytest.raises(InputError) as e:
        block_count(n, block)  # type: ignore[arg-type]
    assert e.value.param == param


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.data())
def test_block_medians_are_the_medians_of_consecutive_slices(blocks: int, block: int, data: st.DataObject) -> None:
    values = data.draw(st.lists(st.integers(1, 10**6), min_size=blocks * block, max_size=blocks * block))
    expected = [statistics.median(values[j * block : (j + 1) * block]) for j in range(blocks)]
    assert block_medians(np.array(values, dtype=float), block).tolist() == expected


def test_block_medians_refuses_a_block_that_does_not_divide_and_a_matrix() -> None:
    with pytest.raises(InputError, match="5 values do not split into blocks of 2"):
        block_medians(np.arange(5.0), 2)
    with pytest.raises(InputError, match="one-dimensional") as e:
        block_medians(np.ones((2, 2)), 2)
    assert e.value.param == "values"


@pytest.mark.parametrize("block", [0, 3])
def test_seed_block_configs_refuse_blocks_that_do_not_divide_their_seeds(block: int) -> None:
    """block = 0 once raised ZeroDivisionError from ``len(seeds) % block`` (checked before ``block < 1``)."""
    with pytest.raises(InputError) as e:
        WidthConfig(n=20, k=3, widths=(30, 300), seeds=tuple(range(8)), block=block)
    assert e.value.param == "block"
    with pytest.raises(InputError) as e:
        LocalSlopeConfig(ns=(10, 14), ks=(2, 3), seeds=tuple(range(8)), block=block, eval_every=((2, 5), (3, 5)))
    assert e.value.param == "block"


def test_seed_block_configs_count_their_blocks() -> None:
    assert WidthConfig(n=20, k=3, widths=(30, 300), seeds=tuple(range(12)), block=4).blocks == 3
    cfg = LocalSlopeConfig(ns=(10, 14), ks=(2, 3), seeds=tuple(range(12)), block=3, eval_every=((2, 5), (3, 5)))
    assert cfg.blocks == 4
