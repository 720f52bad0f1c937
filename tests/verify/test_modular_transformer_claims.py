"""The Sec. 4.5 claims: registration, the thesis's full-scale settings, thresholds from theory, and the grokking
judge on synthetic observations (the training claims themselves run in tests/verify/test_claims.py)."""

import pytest

from theory import modular_transformer as tmt
from verify.claims import registry
from verify.claims.base import Observation
from verify.claims.modular_transformer import grokking, heads, polynomial  # noqa: F401  (registers the claims)

IDS = [cid for cid in registry() if cid.startswith("shi-fig4.")]


def test_ids_start_with_their_figure_and_quick_claims_exist():
    assert IDS and all(cid.split("-")[1] in {"fig4.1", "fig4.2", "fig4.3", "fig4.4"} for cid in IDS)
    quick = {cid for cid in IDS if "quick" in registry()[cid].configs}
    assert quick == {
        "shi-fig4.1-split-single-frequency",
        "shi-fig4.2-split-coverage",
        "shi-fig4.3-wkq-fourier",
        "shi-fig4.3-control",
        "shi-fig4.3-ablation-layernorm-residual",
        "shi-fig4.4-grokking-delay",
    }
    assert all(registry()[cid].kind == "training" and "full" in registry()[cid].configs for cid in IDS)
    assert registry()["shi-fig4.3-ablation-layernorm-residual"].insensitive


def test_full_configs_are_the_thesis_settings():
    fig43 = registry()["shi-fig4.3-wkq-fourier"].configs["full"].model
    assert (fig43.k, fig43.p, fig43.heads, fig43.d, fig43.layers) == (4, 31, 160, 128, 1)
    assert (fig43.lr, fig43.weight_decay, fig43.betas, fig43.warmup_steps, fig43.batch_size) == (
        1e-3,
        1e-3,
        (0.9, 0.98),
        10,
        1024,
    )
    fig44 = registry()["shi-fig4.4-grokking-delay"].configs["full"]
    assert [(r.k, r.p, r.layers, r.heads, r.d) for r in fig44.runs] == [
        (2, 97, 2, 160, 128),
        (3, 31, 2, 160, 128),
        (4, 11, 2, 160, 128),
        (5, 5, 2, 160, 128),
    ]
    for suffix, (k, p, m) in {"": (4, 47, 2944), "-k3": (3, 97, 1536), "-k5": (5, 23, 5632)}.items():
        cfg = registry()[f"shi-fig4.1-split-single-frequency{suffix}"].configs["full"]
        assert (cfg.k, cfg.p, cfg.width) == (k, p, m)
        assert (cfg.train.optimizer, cfg.train.lr, cfg.train.weight_decay, cfg.train.batch_size) == (
            "adamw",
            5e-3,
            5e-3,
            1024,
        )


def test_concentration_threshold_comes_from_theory():
    cfg = heads.QUICK_HEADS
    assert cfg.min_fraction == float(tmt.concentration_threshold(cfg.model.p, cfg.n_freq**2))
    pred = heads.predict_heads(cfg)
    assert pred["ideal_top_fraction"] == 1 and pred["isotropic_share"] < pred["threshold"] < 1


def _grokking_obs(delays_by_run):
    runs = [{"k": k, "seeds": [0, 1], "delay": d} for k, d in delays_by_run]
    means = [None if None in d else sum(d) / len(d) for _, d in delays_by_run]
    return Observation(value=means, details={"runs": runs})


def test_grokking_judge():
    judge = grokking.DelayDecreasing()
    cfg = grokking.GrokkingConfig(grokking.QUICK.runs, min_drop=100, min_delay=100)
    predicted = grokking.predict_order(cfg)
    assert predicted["order"] == [0, 1]
    good = _grokking_obs([(2, [1600, 1200]), (3, [200, 300])])
    assert judge(predicted, good, cfg)[0] == "pass"
    assert judge(judge.perturb(predicted, good), good, cfg)[0] == "fail"  # the reversed order fails
    flat = _grokking_obs([(2, [300, 300]), (3, [250, 300])])
    verdict, reason = judge(predicted, flat, cfg)
    assert verdict == "fail" and "falls by 25 < 100" in reason and "does not grok" not in reason
    censored = _grokking_obs([(2, [1600, None]), (3, [200, 200])])
    verdict, reason = judge(predicted, censored, cfg)
    assert verdict == "fail" and "not reached" in reason


def test_grokking_judge_requires_every_run_to_generalize_later():
    """ "Fit the training half first and generalize later" is judged: runs whose validation threshold comes with or
    before the training one fail even when the delays decrease in the predicted order."""
    judge = grokking.DelayDecreasing()
    cfg = grokking.GrokkingConfig(grokking.QUICK.runs, min_drop=100, min_delay=100)
    predicted = grokking.predict_order(cfg)
    nothing_groks = _grokking_obs([(2, [0, 0]), (3, [-200, -200])])  # falls by 200 >= min_drop, yet no grokking
    verdict, reason = judge(predicted, nothing_groks, cfg)
    assert verdict == "fail" and "k=2 does not grok" in reason and "k=3 does not grok" in reason
    last_flat = _grokking_obs([(2, [1600, 1200]), (3, [0, -500])])  # the shape of the quick run: k = 3 does not grok
    verdict, reason = judge(predicted, last_flat, cfg)
    assert verdict == "fail" and "k=3 does not grok" in reason and "k=2 does not" not in reason
    below_resolution = _grokking_obs([(2, [1600, 1200]), (3, [100, 0])])  # mean 50 < one evaluation interval
    assert judge(predicted, below_resolution, cfg)[0] == "fail"


def test_grokking_judge_at_quick_scale_judges_the_first_run_only():
    """``grok_runs`` = 1 (the quick setting): grokking is required of the first run in the predicted order only; the
    others are reported as not judged, and the decrease and censoring are still judged."""
    judge = grokking.DelayDecreasing()
    cfg = grokking.GrokkingConfig(grokking.QUICK.runs, min_drop=100, min_delay=100, grok_runs=1)
    predicted = grokking.predict_order(cfg)
    last_flat = _grokking_obs([(2, [1600, 1200]), (3, [0, -500])])
    verdict, reason = judge(predicted, last_flat, cfg)
    assert verdict == "pass" and "k=3 does not grok (not judged at this scale)" in reason
    first_flat = _grokking_obs([(2, [0, 0]), (3, [-200, -200])])
    verdict, reason = judge(predicted, first_flat, cfg)
    assert verdict == "fail" and "k=2 does not grok" in reason
    flat = _grokking_obs([(2, [300, 300]), (3, [250, 300])])
    assert judge(predicted, flat, cfg)[0] == "fail"  # the decrease is still required
    assert grokking.QUICK.grok_runs == 1 and grokking.FULL.grok_runs is None
    with pytest.raises(ValueError, match="grok_runs"):
        grokking.GrokkingConfig(grokking.QUICK.runs, grok_runs=3)


def _ablation_obs(diverged_variant=None, nan_variant=None):
    rows = []
    for layer_norm, residual in heads.VARIANTS:
        row = {"layer_norm": layer_norm, "residual": residual}
        if (layer_norm, residual) == diverged_variant:
            row["diverged"] = "non-finite loss at step 300"
        else:
            val = float("nan") if (layer_norm, residual) == nan_variant else 0.9
            row.update(val_accuracy=[val, 0.8], median_top_fraction=[0.7, 0.8])
        rows.append(row)
    return Observation(value=[], details={"variants": rows})


def test_ablation_judge_does_not_pass_a_diverged_variant():
    judge = heads.ABLATION_JUDGE
    cfg = heads.QUICK_HEADS
    pred = heads.predict_heads(cfg)
    assert judge(pred, _ablation_obs(), cfg)[0] == "pass"
    verdict, reason = judge(pred, _ablation_obs(diverged_variant=(False, False)), cfg)
    assert verdict == "inconclusive" and "LN off/res off: diverged" in reason
    assert judge(pred, _ablation_obs(nan_variant=(True, False)), cfg)[0] == "inconclusive"
    three = _ablation_obs()
    three.details["variants"].pop()
    assert judge(pred, three, cfg)[0] == "inconclusive"


def test_heads_judge_checks_the_median_head_of_each_seed():
    """The statement says the median head of each seed is checked: one unstructured head does not fail a seed, a
    median below the threshold does."""
    cfg = heads.QUICK_HEADS
    pred = heads.predict_heads(cfg)
    lo = cfg.min_fraction
    ok = {"median_top_fraction": lo + 0.1, "min_top_fraction": lo - 0.3, "val_accuracy": 0.95}
    low = {"median_top_fraction": lo - 0.01, "min_top_fraction": lo - 0.3, "val_accuracy": 0.95}
    obs_ok = Observation(value=[lo + 0.1] * 2, details={"per_seed": [ok, ok]}, seeds=(0, 1))
    obs_low = Observation(value=[lo + 0.1, lo - 0.01], details={"per_seed": [ok, low]}, seeds=(0, 1))
    assert heads.HEADS_JUDGE(pred, obs_ok, cfg)[0] == "pass"
    assert heads.HEADS_JUDGE(pred, obs_low, cfg)[0] == "fail"
    assert "median head" in registry()["shi-fig4.3-wkq-fourier"].statement


@pytest.mark.parametrize("cid", IDS)
def test_every_claim_predicts_from_theory(cid):
    claim = registry()[cid]
    for cfg in claim.configs.values():
        assert claim.predict(cfg) is not None
