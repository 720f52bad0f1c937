"""The Thm 5.5 claim (edelman-ch5-thm5.5-mlp-algorithm) can fail: without step 0's feature learning (eta_0 near 0
leaves every feature at ReLU(b)), the second layer alone cannot fit the parity and the units fail; and the schedule
constants match the theorem's formulas (docs/sparse_parity.md)."""

from __future__ import annotations

import math
from fractions import Fraction

from numerics import parity_sgd as nps
from theory import parity as tpar
from verify.claims import Observation, registry
from verify.claims.sparse_parity.thm5_5 import EPS, Thm55Config, unit_uniform

CLAIM = "edelman-ch5-thm5.5-mlp-algorithm"


def _rows(cfg: Thm55Config, first_rate_factor: float) -> list[dict]:
    claim = registry()[CLAIM]
    rows = []
    for c in claim.predict(cfg)["cases"]:
        inits = [nps.thm55_init(c["n"], c["width"], c["bias_grid"], s) for s in cfg.seeds]
        run = nps.thm55_run(
            c["n"],
            c["k"],
            inits,
            cfg.seeds,
            first_rate=c["first_rate"] * first_rate_factor,
            rate=c["rate"],
            batch_size=c["batch"],
            steps=c["steps"],
        )
        for e, seed in enumerate(cfg.seeds):
            rows.append(
                {
                    "seed": seed,
                    "n": c["n"],
                    "k": c["k"],
                    "steps": c["steps"],
                    "width": c["width"],
                    "batch": c["batch"],
                    "min_loss": float(run["min_loss"][e]),
                    "uniform": unit_uniform(seed, c["n"], c["k"]),
                }
            )
    return rows


def test_without_feature_learning_the_units_fail():
    cfg = Thm55Config(cases=((5, 2),), seeds=tuple(range(12)), steps=500)
    claim = registry()[CLAIM]
    rows = _rows(cfg, 1e-9)
    assert min(r["min_loss"] for r in rows) > 0.5  # frozen ReLU(b) features: no fit of the parity
    obs = Observation(
        [r["min_loss"] for r in rows], details={"per_run": rows, "mean_min_loss": 1.0, "mean_min_loss_upper_95": 1.0}
    )
    verdict, _ = claim.judge(claim.predict(cfg), obs, cfg)
    assert verdict in ("fail", "inconclusive")
    assert sum(not u["problems"] for u in claim.judge.units(claim.predict(cfg), obs, cfg)) <= 6


def test_the_schedule_follows_the_theorems_formulas():
    n, k, eps = 5, 2, float(EPS)
    r = tpar.thm55_width(k, EPS)
    assert r % 2 == 0 and r >= k * 2**k * math.log(8 * k / eps) > r - 2
    T = tpar.thm55_steps(n, k, r, EPS)
    assert T >= 2**9 * k**3 * r * n**2 / eps**2 > T - 1
    assert tpar.thm55_first_step_rate(n, k) == 1 / (k * Fraction(3, 8))  # xi_1 of Maj_5 = 3/8 (Lemma B.1)
    assig = tpar.thm55_second_layer_rate(n, k, r, T)
    assert math.isclose(assig, 4 * k**1.5 / (n * math.sqrt(r * (T - 1))))


def test_the_unbiased_init_gives_f_zero():
    W, b, u = nps.thm55_init(7, 30, [float(x) for x in tpar.thm55_bias_grid(2)], 3)
    assert (W[:15] == W[15:]).all() and (u[:15] == -u[15:]).all()
    assert set(b.tolist()) <= {-0.5, 0.0, 0.5}
