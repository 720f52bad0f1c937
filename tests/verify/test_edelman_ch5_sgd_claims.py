"""The Ch. 5 SGD training claims (verify.claims.edelman_ch5_sgd) at the quick scale on the CPU.

Each registered claim runs once (module fixture, ~5-15 s each on 2 cores) and must pass; the predicted
reference values are recomputed here from their definitions (C(n,k) and the geometric law of random search);
the plot specs must render.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import verify.claims.edelman_ch5_sgd as mod  # noqa: F401  (registers the claims)
from verify.claims import RunContext, registry, run_claim
from verify.figures import render_figures

IDS = [
    "edelman-ch5-fig5.1-tc-grows-with-n",
    "edelman-ch5-fig5.2-no-early-convergence",
    "edelman-ch5-fig5.3-hidden-progress",
]


_CACHE: dict[str, object] = {}


def _run(claim_id: str):
    """Each claim runs once per test session (the records are deterministic)."""
    if claim_id not in _CACHE:
        _CACHE[claim_id] = run_claim(registry()[claim_id], RunContext(scale="quick", device="cpu", progress=False))
    return registry()[claim_id], _CACHE[claim_id]


@pytest.fixture(params=IDS)
def record(request: pytest.FixtureRequest):
    return _run(request.param)


def test_claim_passes_at_quick_scale(record) -> None:
    claim, rec = record
    assert rec.verdict == "pass", rec.reason + rec.details.get("traceback", "")
    assert rec.kind == "training" and rec.metadata["device"] == "cpu"
    assert len(rec.metadata["seeds"]) >= 8


def test_plots_render(record, tmp_path) -> None:
    _, rec = record
    made = render_figures([rec.to_json()], tmp_path)
    names = {spec["name"] for spec in rec.artifacts["plots"]}
    assert set(made[rec.id]) == {f"{rec.id}-{name}.png" for name in names}
    assert all((tmp_path / f).stat().st_size > 0 for f in made[rec.id])


def test_growth_claim_details() -> None:
    claim = registry()[IDS[0]]
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    assert pred["C(n,k)"] == {f"({n},{k})": math.comb(n, k) for n, k, _ in cfg.cases}
    assert {k for _, k, _ in cfg.cases} == {2, 3} and len(cfg.seeds) >= 5


def test_growth_judge_flags_a_non_increasing_median() -> None:
    claim = registry()[IDS[0]]
    cfg = claim.configs["quick"].__class__(cases=((10, 2, 5), (20, 2, 5)), seeds=(0, 1), anchor=None)
    rows = [{"n": 10, "k": 2, "median": 60.0, "converged": 2}, {"n": 20, "k": 2, "median": 60.0, "converged": 2}]
    obs = mod.Observation({}, details={"cases": rows})
    verdict, reason = claim.judge(claim.predict(cfg), obs, cfg)
    assert verdict == "fail" and "not increasing" in reason
    rows[1]["median"], rows[1]["converged"] = 70.0, 1
    verdict, reason = claim.judge(claim.predict(cfg), obs, cfg)
    assert verdict == "fail" and "unconverged" in reason


def test_early_claim_random_search_reference() -> None:
    claim = registry()[IDS[1]]
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    C = math.comb(cfg.n, cfg.k)
    q = 1 - 1 / C
    med = math.ceil(math.log(2) / -math.log(q))
    assert pred["C(n,k)"] == C
    assert pred["random_search_p_early"] == pytest.approx(1 - q ** math.floor(0.1 * med), rel=1e-9)
    assert pred["random_search_p_all_above_min_ratio"] == pytest.approx(
        q ** (len(cfg.seeds) * math.floor(0.3 * med)), rel=1e-9
    )
    assert len(cfg.seeds) >= 20 and (cfg.n, cfg.k) == (30, 3)


def test_early_claim_observation() -> None:
    _, rec = _run(IDS[1])
    tc = np.array(rec.details["t_c"], dtype=float)
    assert rec.observed == pytest.approx(tc.min() / np.median(tc))
    assert rec.details["fraction_early"] < rec.predicted["random_search_p_early"]


def test_hidden_progress_observation() -> None:
    _, rec = _run(IDS[2])
    d = rec.details
    assert d["median_ratio_true"] > 1.5
    assert d["median_ratio_true"] > d["median_ratio_random"]
    assert all(0.4 <= a <= 0.65 for a in d["accuracy_at_half_tc"])


def test_full_scale_configs_are_valid_thesis_settings() -> None:
    """The GPU-scale configurations build valid trainer configs (B = 32, hinge, 2^13 validation points)."""
    growth = registry()[IDS[0]].configs["full"]
    for n, k, ev in growth.cases:
        pc = growth.parity(n, k, ev)
        assert pc.batch_size == 32 and pc.loss == "hinge" and pc.n_eval == 8192 and pc.steps == 100_000
    hidden = registry()[IDS[2]].configs["full"]
    pc = hidden.parity(random_labels=True)
    assert (pc.activation, pc.width, pc.second_layer, pc.lr, pc.n_eval) == ("sinusoid", 1, False, 0.01, 8192)
    assert len(registry()[IDS[1]].configs["full"].seeds) >= 1000
