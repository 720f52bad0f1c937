"""Audit of the Thm 5.6 claims' observations and predictions (verify/claims/sparse_parity/embeddings.py): the norm
budget R = rho sqrt(C(n,k)/D), the dimension known before the embedding is built (equal to the built one), the half
Walsh embedding, and which end of each certified bracket the hinge and Walsh claims report. Oracles: the docstrings'
formulas, numerics.embeddings' own embeddings and sweeps."""

from __future__ import annotations

import math

from numerics.embeddings import hinge_over_parities
from verify.claims import RunContext
from verify.claims.sparse_parity import embeddings as emb
from verify.claims.sparse_parity.embeddings import Embedding, EmbeddingConfig
from verify.runtime.options import RunOptions

CTX = RunContext(options=RunOptions(progress=False))
CASES = (
    Embedding("relu", 5, 2, "0.5", size=6, seed=0),
    Embedding("ntk", 5, 2, "0.5", size=3, seed=2),
    Embedding("walsh-half", 5, 2, "0.5"),
    Embedding("walsh", 5, 2, "0.5"),
)


def test_the_budget_makes_d_r_squared_rho_squared_c() -> None:
    """R = rho sqrt(C(n,k)/D): D R^2 = rho^2 C(n,k) (the hypothesis D R^2 < eps^2 C(n,k) for every eps > rho)."""
    for D in (1, 5, 10, 40):
        R = emb._budget(Embedding("walsh", 5, 2, "0.5"), D)
        assert math.isclose(D * R**2, 0.25 * math.comb(5, 2), rel_tol=1e-12)


def test_the_predicted_dimension_is_the_built_one() -> None:
    """The dimension the prediction uses (before building) is the embedding's: D = C(n,k) for Walsh, C(n,k) // 2
    for the half Walsh embedding (the first half of the k-sets), size for ReLU features, size (n + 1) tangent
    features."""
    for case in CASES:
        assert emb._dimension(case) == emb.embed(case).shape[1], case
    assert emb.embed(CASES[2]).shape[1] == math.comb(5, 2) // 2


def test_the_hinge_claim_reports_the_certified_lower_bound_of_the_hardest_parity() -> None:
    """The observation is max over S of each bracket's lower end (a certified lower bound of the max over S of the
    infimum), from numerics' own sweep at the case's budget."""
    case = Embedding("relu", 5, 2, "0.5", size=6, seed=0)
    obs = emb._observe_hinge(EmbeddingConfig((case,)), CTX)
    psi = emb.embed(case)
    sweep = hinge_over_parities(psi, 5, 2, emb._budget(case, psi.shape[1]), gap_tol=emb.GAP_TOL)
    assert sweep.max_lower < sweep.max_upper  # a bracket of positive width: the two ends differ
    assert obs.value == [sweep.max_lower] and obs.details["per_case"][0]["D"] == 6


def test_the_walsh_claim_reports_the_easiest_lower_and_the_hardest_upper_end(monkeypatch) -> None:
    """Per case (min over S of the lower ends, max over S of the upper ends): both brackets of the attained bound;
    read from the sweep itself (a spy on numerics' sweep)."""
    seen = []
    real = emb.hinge_over_parities

    def spy(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(emb, "hinge_over_parities", spy)
    obs = emb._observe_walsh(EmbeddingConfig((Embedding("walsh", 5, 2, "0.9"),)), CTX)
    brackets = seen[0].brackets
    assert obs.value == [min(b.lower for b in brackets), max(b.upper for b in brackets)]
