"""How the report writes a record's values (verify/report/render.py): a headline keeps the value's sign, truth and
digits and says how much it left out; the error of a prediction against an array; which exact forms are compared.
Each expected text follows from the docstrings on hand-built values."""

from __future__ import annotations

import math
import re

import pytest

from verify.report import render


@pytest.mark.parametrize(("value", "text"), [(math.inf, "inf"), (-math.inf, "-inf"), (math.nan, "NaN")])
def test_a_nonfinite_headline_keeps_its_sign(value: float, text: str) -> None:
    """An observed -inf must not read as +inf (nor the other way), alone or in a short list."""
    assert render.headline(value) == text
    assert render.headline([1.0, value]) == f"[1, {text}]"


@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_headline_says_its_truth(value: bool) -> None:
    """A structural check's observed ``true``/``false`` is written as JSON writes it, never inverted."""
    assert render.headline(value) == str(value).lower()
    assert render.headline({"holds": value}) == f"holds: {str(value).lower()}"


@pytest.mark.parametrize("x", [0.123456789, 2.718281828, -1234.56789, 6.02214076e23, 1.0000049e-7])
def test_a_number_headline_keeps_six_significant_digits(x: float) -> None:
    """A headline number reads back to within half a unit of its sixth significant digit (a 1e-4 tolerance can be
    seen in the report)."""
    assert float(render.headline(x)) == pytest.approx(x, rel=5e-6)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_a_short_list_shows_every_value(n: int) -> None:
    """A list of up to four numbers is written out in full (the report's "short lists inline")."""
    values = [0.5 + k for k in range(n)]
    shown = render.headline(values)
    assert [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", shown)] == values


@pytest.mark.parametrize("n", [1, 2, 3, 5, 12])
def test_a_dict_headline_shows_its_keys_or_counts_the_rest(n: int) -> None:
    """No entry of a dictionary value is silently dropped: the headline names each key or says how many more."""
    value = {f"k{i}": i for i in range(n)}
    shown = render.headline(value)
    named = re.findall(r"\bk\d+:", shown)
    more = re.search(r"\(\+(\d+) more\)$", shown)
    assert len(named) + (int(more.group(1)) if more else 0) == n


def test_a_long_exact_form_is_shown_by_its_float() -> None:
    """An exact form over 40 characters is written as its float (``≈ ...``): a headline shows a number, not the
    beginning of a long expression."""
    exact = "+".join(["sqrt(2)/7"] * 5)  # 49 characters
    assert len(exact) > 40
    assert render.headline({"exact": exact, "float": 5 * math.sqrt(2) / 7}) == f"≈ {5 * math.sqrt(2) / 7:.6g}"


def test_one_prediction_in_a_list_is_compared_with_every_observed_value() -> None:
    """A one-element prediction against an array of estimates: the error is over every estimate (``_error``: "a
    scalar prediction against an array"), here the largest |0.75 - 0.5| relative to 0.5."""
    assert render._error([0.5], [0.5, 0.75, 0.6]) == {"abs": 0.25, "rel": 0.5, "n": 3}
    assert render._error([0.5, 1.0], [0.5, 0.75, 0.6]) is None  # two predictions, three values: no pairing


def test_exact_forms_beyond_the_length_limit_are_not_compared() -> None:
    """``exact_equal`` promises False when either form is longer than EXACT_COMPARE_CHARS (no sympy work on a long
    form), even when the long one equals the short one."""
    long = "+".join(["1/200"] * 100)
    assert len(long) > render.EXACT_COMPARE_CHARS
    assert not render.exact_equal("1/2", long) and not render.exact_equal(long, "1/2")
    assert render.exact_equal("1/2", "+".join(["1/20"] * 10))  # a short equal form is found equal


def test_the_error_says_max_only_over_several_values() -> None:
    """The error text says "max abs" over several differences and "abs" for one pair of scalars."""
    one, many = render._error(0.5, 0.75), render._error([0.5, 1.0], [0.75, 1.0])
    assert one is not None and many is not None
    assert render._error_text(one).startswith("abs 0.25") and render._error_text(many).startswith("max abs 0.25")
