"""The Edelman Ch. 8 claims (verify/claims/markov): their metadata, and the task-specific judges on synthetic
observations (each must be able to fail). The verdicts of the quick claims are checked by ``test_claims.py``."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from numerics.stats import rate_power
from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.judges import ExactlyEqual, MaxAbs, Requiring
from verify.claims.markov import exact, trained

CH8 = {cid: c for cid, c in registry().items() if cid.startswith("edelman-ch8-")}


def test_chapter_claims_are_registered_with_sources_and_errata() -> None:
    assert len(CH8) >= 25
    refuted = {cid for cid, c in CH8.items() if c.refuting}
    assert refuted == {
        "edelman-ch8-eq8.3-as-printed",
        "edelman-ch8-E.43-as-printed",
        "edelman-ch8-E.49-as-printed",
        "edelman-ch8-prop8.2-counts-as-printed",
    }
    for cid, claim in CH8.items():
        assert claim.source.startswith("Edelman thesis"), cid
        text = " ".join(filter(None, (claim.source, claim.statement, claim.tolerance, claim.refutes)))
        assert "spec" not in text.lower() and "shared/" not in text, cid
        if claim.refuting:
            assert claim.corrected_by in CH8 and not CH8[claim.corrected_by].refuting
        assert claim.on_device == (claim.kind == "training"), cid
        if claim.kind == "training":
            assert "full" in claim.configs, f"{cid}: no full-scale setting"


def test_full_scale_transformer_claims_use_the_thesis_settings() -> None:
    for cid in ("edelman-ch8-transformer-phases", "edelman-ch8-transformer-phases-k3"):
        tr = CH8[cid].configs["full"].train
        assert (tr.t, tr.lr, tr.batch, tr.model.layers, tr.model.heads, len(tr.seeds)) == (100, 3e-5, 64, 2, 1, 10)
        assert tr.model.positions == "relative" and tr.optimizer == "adamw"
    tri = CH8["edelman-ch8-transformer-trigram"].configs["full"].train
    assert (tri.order, tri.t, tri.model.heads) == (3, 200, 3)
    priors = CH8["edelman-ch8-priors-speed"].configs["full"]
    assert priors.doubly_stochastic.k == priors.mixture.k == 4


# --- the task's judges


@dataclass(frozen=True)
class _Ts:
    ts: tuple[int, ...]


def test_requiring_fails_when_the_structural_part_fails() -> None:
    judge = exact.Requiring(ExactlyEqual(), "pattern")
    assert judge(2, Observation(2, details={"pattern": True}))[0] == "pass"
    assert judge(2, Observation(2, details={"pattern": False}))[0] == "fail"
    assert judge(3, Observation(2, details={"pattern": True}))[0] == "fail"
    assert "pattern" in judge.describe()
    inner = exact.Requiring(MaxAbs(1e-9), "ok")
    obs = Observation([1.0, 2.0], details={"ok": True})
    assert inner(inner.perturb([1.0, 2.0], obs), obs)[0] == "fail"


def test_relative_error_within_c_over_t() -> None:
    judge = exact.RelativeErrorWithinCOverT(10.0)
    cfg = _Ts((10, 100))
    pred = [[1.0, 2.0], [1.0, 2.0]]
    ok = Observation([[1.5, 2.0], [1.05, 2.0]], details={"ts": [10, 100]})  # t x rel. error = 5
    bad = Observation([[1.5, 2.0], [1.2, 2.0]], details={"ts": [10, 100]})  # 20 at t = 100
    assert judge(pred, ok, cfg)[0] == "pass"
    assert judge(pred, bad, cfg)[0] == "fail"
    assert judge(judge.perturb(pred, ok), ok, cfg)[0] == "fail"


STRATEGIES = {
    "uniform": {"kl": 0.21, "stderr": 0.001},
    "unigram": {"kl": 0.09, "stderr": 0.001},
    "bigram": {"kl": 0.01, "stderr": 0.0001},
}


def test_closer_to_bigram() -> None:
    """A seed population: 8 seeds inside the window pass, 8 outside fail, too few seeds cannot pass."""
    judge = trained.CloserToBigram()
    obs = lambda kls: Observation(kls, details={"per_seed": [{"plateau_kl": v} for v in kls]})  # noqa: E731
    assert judge(STRATEGIES, obs([0.02, 0.045] * 4))[0] == "pass"
    assert judge(STRATEGIES, obs([0.02, 0.045] * 2))[0] == "inconclusive"  # 4 of 4: the bound is 0.47 < 0.5
    assert judge(STRATEGIES, obs([0.06] * 8))[0] == "fail"  # beyond the midpoint 0.05
    assert judge(STRATEGIES, obs([0.005] * 8))[0] == "fail"  # better than the near-Bayes bigram strategy
    assert judge(STRATEGIES, obs([0.02] * 7 + [0.06]))[0] == "pass"  # 7 of 8: the bound is 0.53
    pop = judge.population(STRATEGIES, obs([0.02] * 6 + [0.06] * 2))
    assert (pop["successes"], pop["n"], pop["verdict"]) == (6, 8, "inconclusive")
    moved = {**STRATEGIES, "bigram": {"kl": 0.03, "stderr": 0.0001}}  # the prediction matters
    assert judge(moved, obs([0.02] * 8))[0] == "fail"


def test_stays_above_floor() -> None:
    judge = trained.StaysAboveFloor()
    pred = {**STRATEGIES, "counts_bayes": {"kl": 0.075, "stderr": 0.0004}}
    rows = lambda lows: Observation(lows, details={"per_seed": [{"min_kl": v, "stderr_at_min": 0.002} for v in lows]})  # noqa: E731
    assert judge(pred, rows([0.083, 0.08] * 4))[0] == "pass"
    assert judge(pred, rows([0.03] * 8))[0] == "fail"  # an induction head would go far below the floor
    verdict, reason = judge(pred, rows([0.21] * 8))  # an untrained network (uniform strategy's KL) fails the control
    assert verdict == "fail" and "did not learn" in reason
    assert judge(pred, rows([0.083] * 3))[0] == "inconclusive"  # three seeds cannot pass at p0 = 0.5


def _phase_history(kls: list[float], nearest: list[str]) -> list[dict]:
    """A one-seed history of evaluations: test KL and the KL from each strategy to the model (0 to ``nearest``)."""
    out = []
    for step, (kl, near) in enumerate(zip(kls, nearest)):
        dist = {f"kl_to_{n}": [0.0 if n == near else 1.0] for n in ("uniform", "unigram", "bigram")}
        out.append({"step": step, "kl": [kl], **dist})
    return out


def _phases_obs(history: list[dict]) -> Observation:
    return Observation([history[-1]["kl"][0]], details={"history": history})


def _seeds(history: list[dict], n: int) -> list[dict]:
    """The one-seed ``history`` repeated for ``n`` seeds."""
    return [{k: (v * n if isinstance(v, list) else v) for k, v in h.items()} for h in history]


GOOD = _phase_history([0.21, 0.1, 0.09, 0.095, 0.02], ["uniform", "unigram", "unigram", "unigram", "bigram"])


def test_three_phases() -> None:
    """A population of 8 seeds: each must start at the uniform KL, stay on the unigram plateau for 3 consecutive
    evaluations and end near the bigram KL; 4 good seeds cannot pass (inconclusive)."""
    judge = trained.ThreePhases()
    no_plateau = _phase_history([0.21, 0.15, 0.02], ["uniform", "uniform", "bigram"])
    short = _phase_history([0.21, 0.09, 0.09, 0.15, 0.02], ["uniform", "unigram", "unigram", "uniform", "bigram"])
    stuck = _phase_history([0.21, 0.09, 0.09, 0.09, 0.09], ["uniform", "unigram", "unigram", "unigram", "unigram"])
    half_way = _phase_history([0.21, 0.09, 0.09, 0.09, 0.05], ["uniform", "unigram", "unigram", "unigram", "bigram"])
    for hist, verdict in ((GOOD, "pass"), (no_plateau, "fail"), (short, "fail"), (stuck, "fail"), (half_way, "fail")):
        assert judge(STRATEGIES, _phases_obs(_seeds(hist, 8)))[0] == verdict
    assert judge(STRATEGIES, _phases_obs(_seeds(GOOD, 4)))[0] == "inconclusive"
    mixed = [{**h, "kl": h["kl"] + b["kl"]} for h, b in zip(_seeds(GOOD, 7), half_way)]
    for h, b in zip(mixed, half_way):
        h.update({k: h[k] + b[k] for k in h if k.startswith("kl_to_")})
    pop = judge.population(STRATEGIES, _phases_obs(mixed))
    assert (pop["successes"], pop["n"], pop["verdict"]) == (7, 8, "pass")


@pytest.mark.parametrize("cid", ["edelman-ch8-transformer-phases", "edelman-ch8-transformer-phases-k3"])
def test_registered_phase_judge_applies_its_own_plateau_rel(cid: str) -> None:
    """The claim's own judge computes the plateau from the raw history: its ``plateau_rel`` decides. The plateau
    evaluations sit 20 % above the unigram strategy's KL (0.108 against 0.09): inside 0.25, outside 0.1."""
    judge = CH8[cid].judge
    assert (judge.plateau_rel, judge.plateau_evals) == (0.25, 3)
    hist = _seeds(_phase_history([0.21, 0.108, 0.108, 0.108, 0.02], ["uniform"] + ["unigram"] * 3 + ["bigram"]), 8)
    assert judge(STRATEGIES, _phases_obs(hist))[0] == "pass"
    verdict, reason = replace(judge, plateau_rel=0.1)(STRATEGIES, _phases_obs(hist))
    assert verdict == "fail" and "unigram plateau of 0 evaluation(s)" in reason
    assert "0.1" in replace(judge, plateau_rel=0.1).describe()


def test_phase_judge_reads_the_prediction() -> None:
    """The same history judged against other strategy KLs: with a unigram KL of 0.15 the plateau at 0.09 is 40 %
    off, and with a bigram KL of 0.05 the end 0.02 lies below it but a uniform KL of 0.5 moves the start off."""
    judge = CH8["edelman-ch8-transformer-phases"].judge
    hist = _seeds(_phase_history([0.21, 0.09, 0.09, 0.09, 0.02], ["uniform"] + ["unigram"] * 3 + ["bigram"]), 8)
    assert judge(STRATEGIES, _phases_obs(hist))[0] == "pass"
    far_unigram = {**STRATEGIES, "unigram": {"kl": 0.15, "stderr": 0.001}}
    assert judge(far_unigram, _phases_obs(hist))[0] == "fail"
    far_uniform = {**STRATEGIES, "uniform": {"kl": 0.5, "stderr": 0.001}}
    verdict, reason = judge(far_uniform, _phases_obs(hist))
    assert verdict == "fail" and "off the uniform KL" in reason
    assert judge(STRATEGIES, Observation([], details={"history": []}))[0] == "inconclusive"


def test_trigram_phase_judge_ends_at_the_trigram_strategy() -> None:
    judge = CH8["edelman-ch8-transformer-trigram"].judge
    pred = {**STRATEGIES, "trigram": {"kl": 0.005, "stderr": 0.0001}}
    names = ("uniform", "unigram", "bigram", "trigram")

    def hist(last: str) -> list[dict]:
        near = ["uniform", "unigram", "unigram", "unigram", last]
        return [
            {"step": i, "kl": [kl] * 8, **{f"kl_to_{n}": [0.0 if n == near[i] else 1.0] * 8 for n in names}}
            for i, kl in enumerate([0.21, 0.09, 0.09, 0.09, 0.006])
        ]

    assert judge(pred, _phases_obs(hist("trigram")))[0] == "pass"
    assert judge(pred, _phases_obs(hist("bigram")))[0] == "fail"


def _minimal_obs(diag_ratio: float, lag: int, n: int = 8) -> Observation:
    """``n`` seeds with W_k = [[1, 0.25], [0.25, 1]] (cos(W_k, I) = 0.970) and v peaked at ``lag`` (cos(v, e_lag) =
    0.9), the structure claim's diagonal ratio and lag."""
    v = [0.0] * 10
    v[lag - 1], v[lag + 1] = 0.9, float(np.sqrt(1 - 0.81))
    row = {"diag_ratio": diag_ratio, "v_argmax_lag": lag, "even_odd": True, "W": [[1.0, 0.25], [0.25, 1.0]], "v": v}
    return Observation([diag_ratio] * n, details={"per_seed": [dict(row) for _ in range(n)]})


def test_minimal_structure_reads_the_config_bound() -> None:
    """The diagonal-dominance bound is the config's ``min_diag_ratio``: overriding it changes the verdict."""
    claim = CH8["edelman-ch8-minimal-sgd-structure"]
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    obs = _minimal_obs(5.0, 2)
    assert claim.judge(pred, obs, cfg)[0] == "pass"
    assert claim.judge(pred, obs, replace(cfg, min_diag_ratio=6.0))[0] == "fail"
    assert claim.judge(pred, _minimal_obs(1.5, 2), cfg)[0] == "fail"  # below the default 2
    assert claim.judge(pred, _minimal_obs(1.5, 2), replace(cfg, min_diag_ratio=1.0))[0] == "pass"
    assert "config.min_diag_ratio" in claim.judge.describe()


def test_minimal_direction_reads_the_config_cosine_bounds() -> None:
    """The cosine bounds are the config's ``min_cos_w`` / ``min_cos_v`` (not module constants): overriding either
    changes the verdict for the same observation (cos(W_k, I) = 0.97, cos(v, e_2) = 0.9)."""
    claim = CH8["edelman-ch8-minimal-bigram-direction"]
    for scale in ("quick", "full"):
        cfg = claim.configs[scale]
        assert (cfg.min_cos_w, cfg.min_cos_v) == (0.9, 0.8)
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    obs = _minimal_obs(5.0, 2)
    assert claim.judge(pred, obs, cfg)[0] == "pass"
    verdict, reason = claim.judge(pred, obs, replace(cfg, min_cos_w=0.98))
    assert verdict == "fail" and "cos(W_k, predicted W_k)" in reason
    verdict, reason = claim.judge(pred, obs, replace(cfg, min_cos_v=0.95))
    assert verdict == "fail" and "cos(v, e at the predicted lag)" in reason
    assert claim.judge(pred, _minimal_obs(5.0, 2, n=4), cfg)[0] == "inconclusive"  # 4 seeds cannot pass
    other = {**pred, "W_k": [[1.0, 1.0], [1.0, 1.0]]}  # the cosines are taken against the prediction
    assert claim.judge(other, obs, cfg)[0] == "fail"
    desc = claim.judge.describe()
    assert "config.min_cos_w" in desc and "config.min_cos_v" in desc


@pytest.mark.parametrize("cid", ["edelman-ch8-minimal-sgd-structure", "edelman-ch8-minimal-bigram-direction"])
def test_minimal_lag_is_read_from_the_prediction(cid: str) -> None:
    """The argmax lag of v is compared with the prediction's ``v_argmax_lag`` (2 for Fact 8.3's v = e_2), not a
    literal: a prediction with another lag rejects the same observation."""
    claim = CH8[cid]
    cfg = claim.configs["quick"]
    pred = claim.predict(cfg)
    assert pred["v_argmax_lag"] == 2
    assert claim.judge(pred, _minimal_obs(5.0, 2), cfg)[0] == "pass"
    assert claim.judge(pred, _minimal_obs(5.0, 3), cfg)[0] == "fail"
    verdict, reason = claim.judge({**pred, "v_argmax_lag": 3}, _minimal_obs(5.0, 2), cfg)
    assert verdict == "fail" and "predicted 3" in reason


@pytest.mark.parametrize("cid", ["edelman-ch8-E.40-Kj-even-odd", "edelman-ch8-lemma8.4-v2-dominant"])
def test_pattern_claims_judge_the_pattern(cid: str) -> None:
    """The even/odd pattern is part of the verdict, not only a detail."""
    judge = CH8[cid].judge
    assert isinstance(judge, Requiring) and judge.require


def test_errata_kinds() -> None:
    kinds = {
        "edelman-ch8-eq8.3-as-printed": "typo",
        "edelman-ch8-E.43-as-printed": "typo",
        "edelman-ch8-E.49-as-printed": "substantive",
        "edelman-ch8-prop8.2-counts-as-printed": "substantive",
    }
    for cid, kind in kinds.items():
        e = CH8[cid].erratum
        assert e is not None and e.kind == kind and e.where.startswith("Edelman thesis (2024), "), cid


#: The claims judged on the quick phase run, which trains 40 seeds (trained.TF_PHASE_SEEDS), not 8.
PHASE_RUN = ("edelman-ch8-transformer-phases", "edelman-ch8-transformer-induction-head")
#: The pooled pass rate of the quick phase runs the seed count was chosen from (40 of 48 distinct seeds at 1500 steps;
#: docs/markov.md, "Seeds and steps of the quick transformer"): a measurement, not a prediction.
PHASE_PILOT_RATE = 40 / 48


def test_training_claims_declare_their_deviations_and_population() -> None:
    """Every Ch. 8 training claim judges 8 (quick; 40 for the phase run) or 10 (full) seeds at p0 = 0.5; the quick
    transformer settings list the thesis's lr and t they change, the converged minimal model its lr; thresholds set
    after a run are declared."""
    for cid, claim in CH8.items():
        if claim.kind != "training":
            continue
        rule = claim.judge.population_rule
        assert rule is not None and rule.p0 == 0.5, cid
        for scale, cfg in claim.configs.items():
            quick = 40 if cid in PHASE_RUN else 8
            assert claim.judge.planned_runs(cfg) == {"quick": quick, "full": 10}[scale], (cid, scale)
            assert scale in (claim.deviations or {}), f"{cid}: no deviations listed for {scale}"
    quick = {d.parameter for d in CH8["edelman-ch8-transformer-phases"].deviations["quick"]}
    assert quick == {"learning rate (AdamW, transformer)", "context length t"}
    assert [d.value for d in CH8["edelman-ch8-minimal-kl-bigram"].deviations["quick"]] == ["2e-2"]
    assert CH8["edelman-ch8-transformer-phases"].post_hoc and CH8["edelman-ch8-minimal-sgd-structure"].post_hoc


@pytest.mark.parametrize("cid", PHASE_RUN)
def test_quick_phase_run_keeps_its_verdict_on_fresh_seeds(cid: str) -> None:
    """At the measured pass rate a fresh set of the quick phase run's seeds misses ``pass`` with probability <= 1 %
    (docs/verdicts.md's target), where the earlier 8 seeds missed it with 0.39; the seed count is declared post hoc."""
    claim = CH8[cid]
    rule = claim.judge.population_rule
    n = claim.judge.planned_runs(claim.configs["quick"])
    miss = 1 - rate_power(n, rule.p0, PHASE_PILOT_RATE, rule.confidence)
    assert miss <= 0.01, (cid, n, miss)
    assert 1 - rate_power(8, rule.p0, PHASE_PILOT_RATE, rule.confidence) > 0.2  # the flip the change was made for
    assert trained.POST_HOC_SEEDS in claim.post_hoc


def test_priors_speed_is_judged_per_seed_pair() -> None:
    judge = CH8["edelman-ch8-priors-speed"].judge

    def rows(flags: list[bool]) -> Observation:
        return Observation(
            flags, details={"per_seed": [{"faster": f, "ds_samples_doubly_stochastic": 1.0} for f in flags]}
        )

    assert judge(None, rows([True] * 10))[0] == "pass"
    assert judge(None, rows([False] * 10))[0] == "fail"


def test_phase_prediction_is_exact_at_k2() -> None:
    """The transformer claims at k = 2 read the exact strategy KLs of theory.markov (stderr 0), not Monte Carlo."""
    from theory import markov as tm

    cfg = CH8["edelman-ch8-transformer-phases"].configs["quick"]
    pred = CH8["edelman-ch8-transformer-phases"].predict(cfg)
    assert pred["bigram"]["stderr"] == 0.0
    assert pred["bigram"]["kl"] == pytest.approx(float(tm.two_state_strategy_kl(cfg.train.t, "bigram")), rel=1e-12)
