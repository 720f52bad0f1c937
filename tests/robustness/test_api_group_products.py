"""Direct products of three and four factors (issue 11): their real irreps are built, and they agree with an
independent computation from the flat list of factors.

A product G1 x G2 x G3 is built as (G1 x G2) x G3, so the irrep names of the left factor already contain '⊗'
(``triv⊗rot1⊗chi1``); splitting at the first '⊗' lost the irrep (``D4xZ2^2`` failed). The oracle here never
looks at names: the characters of the product are the products of the factors' characters over the
mixed-radix element index (last factor fastest), and the irreps must be orthogonal homomorphisms whose traces
are those characters, with sum d_R^2 = |G|.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

from numerics import groups as ng
from numerics.margins import evaluate
from theory import finite_groups as fg
from theory import groups as tg

PRODUCTS = {
    "D4xZ2^2": ("D4", "Z2", "Z2"),
    "S3xZ2^3": ("S3", "Z2", "Z2", "Z2"),
    "Z2^4": ("Z2", "Z2", "Z2", "Z2"),
    "D4xS3xZ2": ("D4", "S3", "Z2"),
}


def _flat_characters(factors: tuple[str, ...]) -> np.ndarray:
    """Every product of one irreducible character per factor, as a function of the mixed-radix element index."""
    tables = [ng.character_matrix(f) for f in factors]
    rows = []
    for choice in itertools.product(*[range(t.shape[0]) for t in tables]):
        row = np.ones(1)
        for t, i in zip(tables, choice):
            row = np.multiply.outer(row, t[i]).reshape(-1)
        rows.append(row)
    return np.array(rows)


def _sorted_rows(X: np.ndarray) -> np.ndarray:
    return X[np.lexsort(np.round(X, 8).T[::-1])]


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_product_real_irreps_match_the_factors(name):
    G = fg.group(name)
    factors = PRODUCTS[name]
    assert G.order == np.prod([fg.group(f).order for f in factors])
    ct = fg.character_table(G)
    assert sum(d * d for d in ct.dims) == G.order
    expected = _flat_characters(factors)
    X = ng.character_matrix(G)
    assert X.shape == expected.shape
    np.testing.assert_allclose(_sorted_rows(X), _sorted_rows(expected), atol=1e-12)
    np.testing.assert_allclose(X @ X.T / G.order, np.eye(len(X)), atol=1e-12)  # character orthogonality

    T = np.asarray(G.table)
    irreps = ng.real_irreps(G)
    for r, R in enumerate(irreps):
        d = ct.dims[r]
        assert R.shape == (G.order, d, d)
        np.testing.assert_allclose(np.einsum("gij->g", R * np.eye(d)), X[r], atol=1e-12)  # trace = character
        np.testing.assert_allclose(np.einsum("gij,hjk->ghik", R, R), R[T], atol=1e-12)  # R(g) R(h) = R(gh)
        np.testing.assert_allclose(np.einsum("gji,gjk->gik", R, R), np.broadcast_to(np.eye(d), R.shape), atol=1e-12)
    # Schur orthogonality of matrix entries across all irreps: sum_g R_ij(g) R'_kl(g) = |G|/d delta
    E = np.concatenate([R.reshape(G.order, -1) * np.sqrt(R.shape[1]) for R in irreps], axis=1)
    np.testing.assert_allclose(E.T @ E / G.order, np.eye(G.order), atol=1e-10)


def test_three_factor_closed_form_irreps_are_exact():
    G = fg.group("D4xZ2^2")
    irreps = ng.real_irreps(G)
    ct = fg.character_table(G)
    for r in range(ct.n_irreps):
        for g in (1, 7, G.order - 1):
            M = fg.closed_form_irrep(G, r, g)
            np.testing.assert_allclose(np.array(M.evalf(20).tolist(), dtype=float), irreps[r][g], atol=1e-14)
        ia, ib = fg.product_irrep_factors(G, r)
        A, B = G.factors
        assert ct.dims[r] == fg.character_table(A).dims[ia] * fg.character_table(B).dims[ib]


def test_three_factor_construction_reaches_the_closed_form():
    """Thm 7.9 end to end on D4xZ2^2 (the example of group()'s docstring): the float construction's
    normalized margin equals the exact gamma* (or the character LP when the condition fails)."""
    G = fg.group("D4xZ2^2")
    lp = ng.character_lp(G)
    if tg.condition_holds(G):
        gamma = float(sympy.N(tg.max_margin(G), 30))
        net = ng.construction_network(G)
    else:
        gamma = lp.value
        net = ng.construction_network(G, budgets=lp.budgets.tolist())
    assert abs(lp.value - gamma) <= 1e-9 * gamma
    rep = evaluate(net, ng.GroupTask(G))
    assert abs(rep.normalized_margin - gamma) <= 1e-9 * gamma
