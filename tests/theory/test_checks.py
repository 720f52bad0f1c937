"""theory._checks: numbers from callers and size checks (issue 32 regressions: numeric strings with enormous
exponents, NaN fed into Fraction, log10_factorial beyond the float range)."""

from __future__ import annotations

import math
import signal
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theory._checks import (
    MAX_DIGITS,
    MAX_NUMERIC_STRING,
    InputError,
    LimitError,
    as_fraction,
    as_number,
    check_cost,
    check_positive_int,
    log10_binomial,
    log10_factorial,
)


@pytest.fixture
def one_second():
    """Fail instead of hanging: the strings below used to run for minutes (10^999999999 formed by Fraction)."""

    def fire(signum, frame):
        raise TimeoutError("did not return within 1 s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(1)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("text", ["1e999999999", "1e5000", "-1e5000", "1e-5000", "1e-999999999", "1.5e4001/3"])
@pytest.mark.parametrize("convert", [as_number, as_fraction])
def test_enormous_exponents_are_refused_before_fraction_sees_them(text, convert, one_second):
    with pytest.raises(LimitError) as info:
        convert(text, "b")
    assert info.value.param == "b" and info.value.limit == MAX_DIGITS
    assert str(info.value).startswith(f"b = {text!r}")


def test_exponents_within_the_limit_are_exact():
    assert as_number("1e3999", "b") == sympy.Integer(10) ** 3999
    assert as_number("1e-3999", "b") == sympy.Rational(1, 10**3999)
    assert as_number("0e999999999", "b") == 0  # zero: no power of ten is formed
    with pytest.raises(InputError, match="division by zero"):
        as_number("0e999999999/0", "b")
    assert as_number("-1/2", "b") == sympy.Rational(-1, 2) and as_number("2.5e1", "b") == 25


@pytest.mark.parametrize("convert", [as_number, as_fraction])
def test_a_numeric_string_above_its_length_limit_is_refused_as_too_long_not_as_not_a_number(convert):
    """A 201-digit string was refused as "must be a number", though it is one: it is a LimitError naming the
    limit (MAX_NUMERIC_STRING characters), and the longest accepted string is read exactly."""
    assert convert("1" * MAX_NUMERIC_STRING, "b") == int("1" * MAX_NUMERIC_STRING)
    with pytest.raises(LimitError) as info:
        convert("1" * (MAX_NUMERIC_STRING + 1), "b")
    assert info.value.param == "b" and info.value.limit == MAX_NUMERIC_STRING and "too long" in str(info.value)


@pytest.mark.parametrize("nan", [float("nan"), "nan", sympy.nan, float("inf"), sympy.zoo, sympy.oo])
def test_nan_never_reaches_fraction(nan):
    """Fraction(nan) raises a bare ValueError ('cannot convert NaN to integer ratio'); as_fraction names the
    parameter instead."""
    with pytest.raises(InputError) as info:
        as_fraction(nan, "gamma")
    assert info.value.param == "gamma"


def test_as_fraction_reads_floats_as_asked():
    assert as_fraction(0.1, "b") == Fraction(0.1)
    assert as_fraction(0.1, "b", floats="decimal") == Fraction(1, 10)
    assert as_fraction(sympy.Float("2.5"), "b") == Fraction(5, 2)
    with pytest.raises(LimitError):
        as_fraction(sympy.Float("1e5000"), "b")
    with pytest.raises(InputError, match="rational"):
        as_fraction(sympy.pi, "b")


def test_log10_factorial_refuses_instead_of_inf_or_nan():
    """log10_factorial(10**400) used to answer inf and log10_factorial(nan) nan."""
    assert math.isclose(log10_factorial(10**300), 10**300 * (300 - 1 / math.log(10)), rel_tol=1e-3)
    with pytest.raises(LimitError) as info:
        log10_factorial(10**400)
    assert info.value.param == "n"
    for bad in (float("nan"), float("inf"), "10"):
        with pytest.raises(InputError):
            log10_factorial(bad)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 3000), data=st.data())
def test_log10_binomial_matches_the_exact_binomial(n: int, data: st.DataObject) -> None:
    """Oracle: math.comb, formed exactly (both branches: j <= 10^4 summed, j up to 1500 here, and Stirling below)."""
    k = data.draw(st.integers(0, n))
    assert math.isclose(log10_binomial(n, k), math.log10(math.comb(n, k)), rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize(
    ("n", "k"),
    [
        (30_000, 15_000),  # Stirling, n ~ 2j
        (10**6, 300_001),
        (10**100, 20_001),  # Stirling, n >> j: the lgamma differences lose every digit here
        (10**100, 2_000),  # the term-by-term sum at n >> j (math.comb: 2 10^5 digits)
        (2 * 10**30, 10**30),
        (10**300, 10**300 - 5),  # j = 5: the symmetric side
    ],
)
def test_log10_binomial_at_sizes_no_integer_is_formed(n: int, k: int) -> None:
    """Oracles: math.comb, formed exactly, where min(k, n - k) <= 10^4 (and n <= 10^100); mpmath's binomial at 60
    digits otherwise (sizes where C(n, k) has up to ~10^30 digits; mpmath loses C(10^300, 5) at that precision)."""
    if min(k, n - k) <= 10_000 and n <= 10**100:
        expected = math.log10(math.comb(n, k))
    elif min(k, n - k) <= 10:
        expected = math.log10(math.comb(n, min(k, n - k)))
    else:
        with mpmath.workdps(60):
            expected = float(mpmath.log10(mpmath.binomial(n, k)))
    assert math.isclose(log10_binomial(n, k), expected, rel_tol=1e-13)


def test_log10_binomial_refuses_bad_input_and_says_inf_beyond_the_float_range() -> None:
    assert log10_binomial(10**400, 10**399) == math.inf  # C >= 2^(10^399): beyond every size check
    assert log10_binomial(7, 0) == log10_binomial(7, 7) == 0.0
    for n, k in ((5, 7), (5, -1)):
        with pytest.raises(InputError) as info:
            log10_binomial(n, k)
        assert info.value.param == "k"
    with pytest.raises(InputError):
        log10_binomial(2.5, 1)


def test_check_cost_messages_and_bad_costs():
    with pytest.raises(LimitError, match=r"is ~10\^\(~10\^400\)"):
        check_cost(10**400, 4000, param="k", value=3, what="the value", hint="", log10=True)  # used to OverflowError
    with pytest.raises(InputError):
        check_cost(float("nan"), 10, param="k", value=3, what="the value", hint="")
    with pytest.raises(InputError):
        check_positive_int(3, "k", minimum=float("nan"))


def _shown_value(text: str, log10: bool) -> float:
    """A cost or limit as a message prints it, read back (``~10^5.0002`` -> 5.0002 on the log scale)."""
    text = text.lstrip("~").replace(",", "")
    return float(text.removeprefix("10^")) if log10 else float(text)


@settings(max_examples=300, deadline=None)
@given(
    limit=st.one_of(st.integers(0, 10**14), st.floats(0, 1e300, allow_nan=False)),
    gap=st.floats(1e-9, 1e-2),
    log10=st.booleans(),
)
def test_check_cost_never_shows_a_cost_equal_to_its_limit(limit: float, gap: float, log10: bool) -> None:
    """A cost just above its limit is printed with the digits that tell them apart (it read ``~10^5, above the
    limit 10^5``): the message's cost, read back, is above its limit."""
    cost = limit + gap * max(1.0, abs(float(limit)) * 1e-6)
    if not cost > limit:
        return  # the gap is below the float's resolution
    with pytest.raises(LimitError) as err:
        check_cost(cost, limit, param="k", value="x", what="the work", hint="", log10=log10)
    shown = str(err.value).split("the work is ")[1].split(", above the limit ")
    assert _shown_value(shown[0], log10) > _shown_value(shown[1], log10), str(err.value)


def test_check_cost_tells_apart_integers_that_round_alike() -> None:
    with pytest.raises(LimitError, match=r"is ~10\^400 \+ 1, above the limit ~10\^400"):
        check_cost(10**400 + 1, 10**400, param="k", value=3, what="the value", hint="")
    with pytest.raises(LimitError, match=r"is inf, above the limit ~10\^400"):  # float() of the limit overflows
        check_cost(float("inf"), 10**400, param="k", value=3, what="the value", hint="")


def test_check_sequence_copies_refuses_strings_and_counts_before_copying() -> None:
    from theory._checks import InputError, LimitError, check_sequence

    assert check_sequence(iter([3, 1]), "w", 2, what="weights", hint="") == [3, 1]  # a generator is copied first
    with pytest.raises(InputError, match="w must be a sequence"):
        check_sequence(b"ab", "w", 2, what="weights", hint="")
    with pytest.raises(LimitError) as err:
        check_sequence(range(10**18), "w", 2, what="weights", hint="")  # refused from its length, never copied
    assert err.value.param == "w"


@pytest.mark.parametrize("log10_count", [10**47, float("inf"), 600.2])
def test_check_entries_names_any_order_of_size(log10_count) -> None:
    """An int logarithm beyond the float range raised OverflowError (math.isfinite of it); found by the API fuzz."""
    from theory._checks import check_entries

    with pytest.raises(LimitError, match=r"above the limit 200$"):
        check_entries(log10_count, lambda: 0, param="k", value=3, what="the construction", hint="", limit=200)


def test_check_odd_modulus_accepts_exactly_the_odd_integers_from_3():
    from theory._checks import check_odd_modulus

    for p in range(-5, 30):
        if p >= 3 and p % 2 == 1:
            assert check_odd_modulus(p) == p
        else:
            with pytest.raises(InputError) as info:
                check_odd_modulus(p)
            assert info.value.param == "p"
