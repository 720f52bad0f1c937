"""Bad-input tests of ``theory.groups``: a ValueError naming the parameter, never a KeyError from sympy."""

from __future__ import annotations

import numpy as np
import pytest

from theory import groups as tg


def test_game_value_on_undetermined_support_is_refused():
    # On S6 with irreps (2, 4, 8) and classes (4, 6, 8) the square systems of App. D.9.2 are rank deficient
    # (checked independently below with numpy), so sympy returns a solution with a free weight.
    A = np.array([[float(x) for x in row] for row in tg.character_game_matrix("S6")])
    B = A[np.ix_([1, 3, 7], [3, 5, 7])]  # rows irreps - 1, columns classes - 1
    for sub in (B, B.T):
        system = np.block([[sub.T, -np.ones((3, 1))], [np.ones((1, 3)), np.zeros((1, 1))]])
        assert np.linalg.matrix_rank(system) < 4
    with pytest.raises(ValueError, match=r"irreps=\(2, 4, 8\).*does not determine the game value"):
        tg.game_value_on_support("S6", (2, 4, 8), (4, 6, 8))


@pytest.mark.parametrize(
    ("irreps", "classes", "match"),
    [
        ((1, 2), (1,), "square"),
        ((), (), "square"),
        ((0,), (1,), r"irreps in 1\.\.4"),
        ((1,), (99,), r"classes in 1\.\.4"),
        ((-1,), (1,), "irreps"),
        ((1.5,), (1,), "irreps"),
    ],
)
def test_game_value_on_support_refuses_bad_indices(irreps, classes, match):
    with pytest.raises(ValueError, match=match):
        tg.game_value_on_support("S4", irreps, classes)


def test_game_value_on_support_refuses_repeated_indices():
    """Repeated indices made sympy solve an arbitrarily large system (irreps=[1] * 1000); they are refused first."""
    with pytest.raises(ValueError, match="distinct") as info:
        tg.game_value_on_support("S4", [1] * 1000, [1] * 1000)
    assert info.value.param == "irreps"


@pytest.mark.parametrize(
    "call",
    [lambda: tg.kappa("S3", [0, "1e999999999", 0]), lambda: tg.construction("S3", budgets=[0, "1e-999999999", 1])],
)
def test_numeric_strings_with_huge_exponents_are_refused_at_once(call):
    """Fraction("1e999999999") builds a billion-digit integer (a hang); the exponent is checked first."""
    with pytest.raises(ValueError, match="exponent"):
        call()


def test_names_above_the_group_limit_are_refused_before_building():
    from theory._checks import LimitError

    for name in ("S7", "S1000000", "D361"):
        with pytest.raises(LimitError) as info:
            tg.max_margin(name)
        assert info.value.param == "group"
