"""numerics/embeddings.py: the certified hinge programs of Edelman Thm 5.6 (brackets, the proof's dual point,
Bessel's inequality, input checks)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from numerics.embeddings import (
    hinge_over_parities,
    normalize_rows,
    ntk_embedding,
    random_relu_embedding,
    walsh_embedding,
    zero_one_error,
)
from numerics.walsh import characters


@pytest.mark.parametrize("make", [lambda: random_relu_embedding(5, 6, 0), lambda: ntk_embedding(5, 2, 1)])
def test_brackets_are_ordered_and_above_the_proof_point(make) -> None:
    psi = make()
    R = 0.8
    sweep = hinge_over_parities(psi, 5, 2, R)
    assert len(sweep.brackets) == 10
    for b in sweep.brackets:
        y = characters(5, list(b.support)).astype(float)
        proof_point = 1 - R * np.linalg.norm(y @ psi) / len(y)
        assert proof_point - 1e-12 <= b.lower <= b.upper + 1e-12
        assert b.gap <= 1e-6


def test_bessel_inequality_over_the_k_sets() -> None:
    psi = random_relu_embedding(6, 12, 3)
    total = sum(np.linalg.norm(characters(6, list(S)) @ psi / 64) ** 2 for S in itertools.combinations(range(6), 3))
    assert total <= np.mean((psi**2).sum(axis=1)) + 1e-12 <= 1 + 1e-12


def test_embeddings_have_unit_sup_norm() -> None:
    for psi in (random_relu_embedding(4, 5, 0), ntk_embedding(4, 3, 0), walsh_embedding(4, [(0, 1), (2, 3)])):
        assert np.isclose(np.sqrt((psi**2).sum(axis=1)).max(), 1.0)


def test_walsh_point_classifies_every_parity() -> None:
    sets = list(itertools.combinations(range(5), 2))
    psi = walsh_embedding(5, sets)
    for j, S in enumerate(sets):
        w = np.zeros(len(sets))
        w[j] = 1e-3
        assert zero_one_error(psi, characters(5, list(S)), w) == 0.0


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="sup_x"):
        hinge_over_parities(2 * walsh_embedding(3, [(0,)]), 3, 1, 1.0)
    with pytest.raises(ValueError, match="shape"):
        hinge_over_parities(np.ones((4, 2)) / 2, 3, 1, 1.0)
    with pytest.raises(ValueError, match="R must be"):
        hinge_over_parities(walsh_embedding(3, [(0,)]), 3, 1, 0.0)
    with pytest.raises(ValueError, match="zero"):
        normalize_rows(np.zeros((2, 2)))
