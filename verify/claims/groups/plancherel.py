r"""Lemma D.12 of the Edelman thesis (App. D.9): the Plancherel-type identity
:math:`\|u\|^2 + \|v\|^2 + \|w\|^2 = \sum_R (|G|/d_R)(\|\alpha_R\|_F^2 + \|\beta_R\|_F^2 + \|\gamma_R\|_F^2)` for
neuron weights written in the basis of irrep entries, checked exactly.

The weights u, v, w are synthesised from random rational coefficient matrices over the exact real orthogonal irreps
(closed forms of :func:`theory.finite_groups.closed_form_irrep` for dihedral groups, 1-dimensional characters and
their products; Young's orthogonal form, :func:`theory.finite_groups.young_orthogonal_generators`, for S_n), and
their squared norms summed over the group's elements; the right side is
:func:`theory.groups.plancherel_norm`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy

from theory import finite_groups as fg
from theory import groups as tg

from ..base import Claim, Observation, RunContext, register
from ..judges import ExactlyEqual
from .common import SRC


@dataclass(frozen=True)
class PlancherelConfig:
    """Groups (all irreps real, with exact irreps here) and a seed for the coefficient matrices (entries p/q with
    |p| <= 3, 1 <= q <= 3)."""

    groups: tuple[str, ...] = ("S3", "D4", "Z2^3", "D4xZ2")
    seed: int = 0


def _young_irrep(G: fg.FiniteGroup, name: str) -> list[sympy.Matrix]:
    """The exact irrep of S_n with partition ``name`` at every element: Young's orthogonal form on the adjacent
    transpositions, extended by ``R(g s_i) = R(g) R(s_i)`` (breadth first over the Cayley table)."""
    shape = tuple(int(x) for x in name.strip("()").split(","))
    gens = fg.young_orthogonal_generators(shape)
    R: list[sympy.Matrix | None] = [None] * G.order
    R[0] = sympy.eye(gens[0].shape[0])
    for g, i, h in fg.cayley_tree(G, fg.adjacent_transpositions(G)):
        R[h] = (R[g] * gens[i]).applyfunc(sympy.radsimp)
    return [M for M in R if M is not None]


def _exact_irreps(G: fg.FiniteGroup) -> list[list[sympy.Matrix]]:
    ct = fg.character_table(G)
    if G.kind == "symmetric":
        return [
            [sympy.Matrix([[ct.chi(r, g)]]) for g in range(G.order)] if d == 1 else _young_irrep(G, ct.names[r])
            for r, d in enumerate(ct.dims)
        ]
    return [[fg.closed_form_irrep(G, r, g) for g in range(G.order)] for r in range(ct.n_irreps)]


def _coefficients(name: str, seed: int) -> list[list[sympy.Matrix]]:
    """Three lists (alpha, beta, gamma) of one random rational d_R x d_R matrix per irrep of the group."""
    ct = fg.character_table(name)
    rng = np.random.default_rng([seed, sum(map(ord, name))])

    def entry() -> sympy.Rational:
        return sympy.Rational(Fraction(int(rng.integers(-3, 4)), int(rng.integers(1, 4))))

    return [[sympy.Matrix(d, d, lambda i, j: entry()) for d in ct.dims] for _ in range(3)]


def _predict(cfg: PlancherelConfig) -> list[sympy.Expr]:
    """``sum_R |G|/d_R (||alpha_R||_F^2 + ||beta_R||_F^2 + ||gamma_R||_F^2)`` per group."""
    return [
        sum((tg.plancherel_norm(name, c) for c in _coefficients(name, cfg.seed)), sympy.Integer(0))
        for name in cfg.groups
    ]


def _observe(cfg: PlancherelConfig, ctx: RunContext) -> Observation:
    values = []
    for name in cfg.groups:
        G = fg.group(name)
        irreps = _exact_irreps(G)
        total = sympy.Integer(0)
        for alphas in _coefficients(name, cfg.seed):
            # u(g) = sum_R sum_ij alpha_R[i, j] R(g)[i, j]
            u = [
                sum((sum(alphas[r].multiply_elementwise(irreps[r][g])) for r in range(len(irreps))), sympy.Integer(0))
                for g in range(G.order)
            ]
            total += sum(sympy.expand(x) ** 2 for x in u)
        values.append(sympy.radsimp(sympy.expand(total)))
    return Observation(values, details={"groups": list(cfg.groups)})


register(
    Claim(
        id="edelman-lemD.12-plancherel",
        source=f"{SRC}, Lemma D.12 (App. D.9)",
        statement="For u = sum_i alpha_i rho_i, v = sum_i beta_i rho_i, w = sum_i gamma_i rho_i over the entries rho_i of "
        "real orthogonal irreps (Lemma D.10): ||u||^2 + ||v||^2 + ||w||^2 = sum_R (|G|/d_R)(||alpha_R||_F^2 + "
        "||beta_R||_F^2 + ||gamma_R||_F^2); exact, for random rational coefficients, on S_3, D_4, Z_2^3, D_4 x Z_2 (quick) and also D_5, D_6, S_4, S_5 (full).",
        kind="symbolic",
        configs={
            "quick": PlancherelConfig(),
            "full": PlancherelConfig(groups=("S3", "D4", "D5", "D6", "Z2^3", "D4xZ2", "S4", "S5")),
        },
        predict=_predict,
        observe=_observe,
        judge=ExactlyEqual(),
    )
)
