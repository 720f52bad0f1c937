"""numerics/limits.py: memory estimates and work limits for sizes of any magnitude (issue 32)."""

from __future__ import annotations

from unittest import mock

import pytest

from numerics import limits
from theory._checks import InputError, LimitError


def test_array_bytes_refuses_negative_sizes():
    """array_bytes(-5, 3) returned -120: a negative size is refused, naming the parameter."""
    with pytest.raises(InputError) as info:
        limits.array_bytes(-5, 3)
    assert info.value.param == "shape" and "-5" in str(info.value)
    with pytest.raises(InputError) as info:
        limits.array_bytes(5, 3, itemsize=-8)
    assert info.value.param == "itemsize"
    with pytest.raises(InputError):
        limits.array_bytes(2.5)
    assert limits.array_bytes(5, 3) == 120 and limits.array_bytes(5.0, 3) == 120


@pytest.mark.parametrize("available", [2**30, None])
def test_check_allocation_takes_integers_of_any_size(available):
    """A width of 10**400 raised OverflowError (a float conversion): it is a LimitError, with or without a known
    amount of memory."""
    with mock.patch("numerics.limits.available_memory", return_value=available), pytest.raises(LimitError) as info:
        limits.check_allocation(limits.array_bytes(10**400, 3), param="width", value=10**400, what="the weights")
    assert info.value.param == "width" and str(info.value).startswith("width = ~10^400 is too large")
    with mock.patch("numerics.limits.available_memory", return_value=None):
        limits.check_allocation(2**62, param="n", value=1, what="x")  # unknown memory: only beyond 2^63 is refused
        with pytest.raises(LimitError):
            limits.check_allocation(2**63, param="n", value=1, what="x")


def test_format_bytes_takes_integers_of_any_size():
    assert limits.format_bytes(10**400) == "~2^1288 TiB"
    assert limits.format_bytes(1536) == "1.5 KiB" and limits.format_bytes(3 * 2**30) == "3.0 GiB"
    with pytest.raises(InputError):
        limits.format_bytes(float("nan"))


def test_check_work_compares_exact_integers():
    limits.check_work(limits.MAX_WORK, param="n", value=1, what="x")
    with pytest.raises(LimitError) as info:
        limits.check_work(10**400, param="n", value=10**400, what="the draws")
    assert info.value.param == "n"


def test_check_rational_reads_the_exponent_first():
    with pytest.raises(InputError) as info:
        limits.check_rational("1e999999999", "b")
    assert info.value.param == "b"
    assert str(limits.check_rational("-1/2", "b")) == "-1/2"
    for bad in (float("nan"), float("inf"), None, "abc", True):
        with pytest.raises(InputError):
            limits.check_rational(bad, "b")


def test_work_limits_scaled_raises_only_the_work_limits_and_restores_them():
    """A full-scale run raises the per-call work limits (docs/limits.md); memory and sample-count limits stay, the
    factor nests and is restored after an exception."""
    cost = 3 * limits.MAX_WORK
    with pytest.raises(LimitError):
        limits.check_work(cost, param="n", value=1, what="x")
    with pytest.raises(RuntimeError), limits.work_limits_scaled(10):
        limits.check_work(cost, param="n", value=1, what="x")  # allowed inside the block
        assert limits.check_mc(10**6, "n", 3 * limits.MAX_MC_WORK // 10**6, "n x entries") == 10**6
        with limits.work_limits_scaled(2):
            assert limits.max_work() == 2 * limits.MAX_WORK
            with pytest.raises(LimitError):
                limits.check_work(cost, param="n", value=1, what="x")
        assert limits.max_mc_work() == 10 * limits.MAX_MC_WORK
        with pytest.raises(LimitError):  # the sample-count limit is not a work limit
            limits.check_mc(limits.MAX_MC_SAMPLES + 1, "n", 1, "n x 1 entry")
        raise RuntimeError("leaves the block")
    assert limits.max_work() == limits.MAX_WORK and limits.max_mc_work() == limits.MAX_MC_WORK
    for bad in (0, -1, 2.5, "10"):
        with pytest.raises(InputError):
            limits.work_limits_scaled(bad)


@pytest.mark.parametrize("bad", [["1", "2"], [1.0, "2"], [b"1"], [["0.5"], ["1"]]])
def test_check_real_array_refuses_strings_numpy_would_read_as_numbers(bad):
    """``np.asarray(["1", "2"], dtype=float)`` is ``[1., 2.]``: weights given as text are a caller's mistake."""
    with pytest.raises(InputError, match="w must be a real array"):
        limits.check_real_array(bad, "w")


def test_check_real_array_keeps_exact_and_object_numbers():
    from fractions import Fraction

    import numpy as np

    got = limits.check_real_array(np.array([Fraction(1, 2), 3], dtype=object), "w")
    assert got.dtype == np.float64 and got.tolist() == [0.5, 3.0]


def test_check_real_vector_refuses_non_finite_entries_and_other_shapes():
    with pytest.raises(InputError, match="w must be finite"):
        limits.check_real_vector([1.0, float("nan")], "w", 2)
    with pytest.raises(InputError, match=r"w must be 3 weights, got shape \(2,\)"):
        limits.check_real_vector([1.0, 2.0], "w", 3, what="w must be 3 weights")
    with pytest.raises(InputError, match="w must be a real array"):
        limits.check_real_vector(None, "w", 2)


@pytest.mark.parametrize("atol", [float("nan"), float("inf"), -1e-8, "1e-8", True])
def test_rounding_atol_refuses_a_tolerance_that_is_not_one(atol) -> None:
    """A NaN tolerance came back as NaN, and `err > nan` is False: every identity check would pass (found by the
    API fuzz test's random draw)."""
    from numerics.limits import rounding_atol

    with pytest.raises(InputError, match="atol"):
        rounding_atol([0.5, 0.5], atol)


def test_check_allocation_refuses_only_what_is_larger_than_the_budget():
    """ "Refuse an allocation ... larger than MEMORY_FRACTION of the available memory": exactly the budget fits."""
    avail = 2**20
    budget = int(avail * limits.MEMORY_FRACTION)
    with mock.patch("numerics.limits.available_memory", return_value=avail):
        limits.check_allocation(budget, "n", 1, "x")
        with pytest.raises(LimitError):
            limits.check_allocation(budget + 1, "n", 1, "x")


@pytest.mark.parametrize("bad", [-1, -1.0])
def test_sizes_refuse_every_negative_value(bad):
    with pytest.raises(InputError):
        limits.array_bytes(3, bad)
    with pytest.raises(InputError):
        limits.array_bytes(3, itemsize=bad)
