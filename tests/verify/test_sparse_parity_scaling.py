"""The Fig. 5.1 local-slope claim's judge (verify/claims/sparse_parity/scaling.py) rejects what the statement excludes:
random-search blocks, and SGD-like blocks judged against a boundary they exceed. No training: observations are
built from block medians."""

from __future__ import annotations

import numpy as np

from numerics.scaling import local_slopes, random_search_block_medians
from verify.claims import registry
from verify.claims.base import Observation

CID = "edelman-ch5-fig5.1-local-slope-law"


def _observation(medians: dict[tuple[int, int], np.ndarray], cfg) -> Observation:
    blocks = []
    for j in range(cfg.blocks):
        slopes = {str(k): local_slopes(cfg.ns, [medians[(n, k)][j] for n in cfg.ns]) for k in cfg.ks}
        blocks.append({"label": f"block {j}", "slopes": slopes})
    return Observation(None, details={"blocks": blocks, "slope_ranges": {}, "divergence": None})


def _sgd_like(cfg) -> dict[tuple[int, int], np.ndarray]:
    """Medians growing like n^(k - 1.4) (slopes 0.6 at k = 2, 1.6 at k = 3: SGD-like, below both boundaries)."""
    return {(n, k): np.full(cfg.blocks, 10.0 * n ** (k - 1.4)) for n in cfg.ns for k in cfg.ks}


def test_sgd_like_blocks_pass_and_random_search_blocks_do_not() -> None:
    claim = registry()[CID]
    cfg = claim.configs["quick"]
    predicted = claim.predict(cfg)
    assert predicted["random_search_block_rate"] < 0.5
    assert claim.judge(predicted, _observation(_sgd_like(cfg), cfg), cfg)[0] == "pass"
    cases = [(n, k) for k in cfg.ks for n in cfg.ns]
    rs = random_search_block_medians(cases, cfg.blocks, cfg.block, seed=123)
    assert claim.judge(predicted, _observation(rs, cfg), cfg)[0] != "pass"


def test_a_boundary_at_the_gap_law_minus_one_fails_sgd_like_blocks() -> None:
    claim = registry()[CID]
    cfg = claim.configs["quick"]
    predicted = claim.predict(cfg)
    for interval in predicted["laws"].values():
        for law in interval.values():
            law["boundary"] = law["fourier_gap_law"] - 1.0
    assert claim.judge(predicted, _observation(_sgd_like(cfg), cfg), cfg)[0] == "fail"


def test_no_growth_with_k_fails() -> None:
    claim = registry()[CID]
    cfg = claim.configs["quick"]
    flat = {(n, k): np.full(cfg.blocks, 10.0 * n**0.6) for n in cfg.ns for k in cfg.ks}
    assert claim.judge(claim.predict(cfg), _observation(flat, cfg), cfg)[0] == "fail"


WIDTH = "edelman-ch5-fig5.4-width-plateau"


def _width_observation(medians: dict[int, np.ndarray], cfg) -> Observation:
    blocks = [
        {"label": f"block {j}", "medians": {str(r): float(medians[r][j]) for r in cfg.widths}}
        for j in range(cfg.blocks)
    ]
    return Observation(None, details={"blocks": blocks, "speedup_ranges": {}, "divergence": None})


def test_width_plateau_rejects_random_search_and_a_boundary_of_one() -> None:
    claim = registry()[WIDTH]
    cfg = claim.configs["quick"]
    predicted = claim.predict(cfg)
    assert predicted["random_search_block_rate"] < 0.5
    plateau = {r: np.full(cfg.blocks, 500.0 * r**-0.3) for r in cfg.widths}  # speedup 10^0.3 = 2 per decade
    assert claim.judge(predicted, _width_observation(plateau, cfg), cfg)[0] == "pass"
    rs = {
        r: random_search_block_medians([(cfg.n, cfg.k)], cfg.blocks, cfg.block, seed=7 + r, copies=r)[(cfg.n, cfg.k)]
        for r in cfg.widths
    }
    assert claim.judge(predicted, _width_observation(rs, cfg), cfg)[0] != "pass"
    for pair in predicted["pairs"].values():
        pair["boundary"] = 1.0
    assert claim.judge(predicted, _width_observation(plateau, cfg), cfg)[0] == "fail"


def test_a_divergence_is_inconclusive_and_the_population_counts_every_block() -> None:
    """BlockPopulation (verify/claims/sparse_parity/common.py): a run whose parameters diverged is inconclusive with
    the divergence as its reason, and the record's population counts one unit per block, as planned."""
    claim = registry()[CID]
    cfg = claim.configs["quick"]
    predicted = claim.predict(cfg)
    obs = _observation(_sgd_like(cfg), cfg)
    pop = claim.judge.population(predicted, obs, cfg)
    assert pop["n"] == cfg.blocks == claim.judge.planned_runs(cfg)
    assert pop["successes"] == cfg.blocks and pop["verdict"] == claim.judge(predicted, obs, cfg)[0] == "pass"
    blown = Observation(None, details={**obs.details, "divergence": "seed 3 diverged at step 50"})
    assert claim.judge(predicted, blown, cfg) == ("inconclusive", "seed 3 diverged at step 50")
