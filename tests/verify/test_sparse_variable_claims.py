"""Details and counterexamples of the Edelman Ch. 4 claims (docs/sparse_variable.md); the verdicts of every quick
claim are checked by ``test_claims.py``. Only the fast (non-training) claims are run here."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest

import verify.claims  # noqa: F401  (registers every task's claims, Ch. 4 among them)
from theory import sparse_variable as ts
from verify.claims.base import RunContext, evaluate, registry
from verify.claims.sparse_variable import constructions as cons
from verify.runtime.options import RunOptions

from .claim_checks import record


def test_ids_and_corrections():
    ours = {cid: c for cid, c in registry().items() if cid.startswith("edelman-ch4-")}
    assert len(ours) == 22  # with the Fig. 4.4 variant at the source's init (issue 29, item 5) and Fig. 4.3 left
    assert registry()["edelman-ch4-fig4.4-parity-transition-source-hparams"].variant_of in ours
    for c in ours.values():
        if c.refutes:
            assert c.corrected_by in ours and not registry()[c.corrected_by].refutes


def test_multihead_counterexample_outputs_zero():
    rec = record("edelman-ch4-lemA19-multihead-printed")
    assert rec.verdict == "refuted"
    assert rec.counterexample["head_outputs"] == [0.0, 0.0, 0.0]
    assert rec.details["max_abs_output_over_all_inputs"] == 0.0


def test_bump_and_delta_counterexamples():
    bump = record("edelman-ch4-lemA25-bump-printed").counterexample
    assert bump["printed_psi_at_x_minus_x0"]["0"] == "0"  # the bump is 0 at its centre
    assert bump["printed_network"] != float(Fraction(bump["f"]))
    delta = record("edelman-ch4-lemA23-delta-printed").counterexample
    assert delta["head_error"] > float(Fraction(delta["delta"]))
    assert Fraction(delta["exact_network"]) != Fraction(delta["f"])


def test_w1_counterexample_is_the_bias_entry():
    cex = record("edelman-ch4-lemA25-w1-bound-printed").counterexample
    assert abs(cex["value"]) == 1 / float(Fraction(cex["delta"])) + 2 > cex["printed_bound"]


def test_coherent_counterexample_has_unequal_relevant_attention():
    cex = record("edelman-ch4-lemA19-coherent-printed").counterexample
    assert float(Fraction(cex["coherence"])) < 1 / 3 and cex["error"] > 1 / 6
    att = cex["attention_on_relevant"]
    assert max(att) - min(att) > 0.1
    fixed = record("edelman-ch4-lemA19-coherent-corrected")
    assert fixed.verdict == "pass" and fixed.observed[0] < 1e-9


def test_wq_norm_grows_like_log_T():
    rows = record("edelman-ch4-prop4.12-norms").details["heads"]
    wq = {r["T"]: r["W_Q"] for r in rows if r["lemma"] == "A.19" and r["output"] == "scalar" and r["s"] == 2}
    assert wq[10_000] - wq[10] == math.log(1000) or abs(wq[10_000] - wq[10] - math.log(1000)) < 1e-12
    assert all(r["W_K"] == math.sqrt(r["s"]) for r in rows if r["lemma"] == "A.19" and r["output"] == "scalar")
    names = [p["name"] for p in record("edelman-ch4-prop4.12-norms").artifacts["plots"]]
    assert names == ["wq-vs-T", "mlp-vs-s"]


def test_shattering_record():
    rec = record("edelman-ch4-prop4.8-shattering")
    assert rec.observed == [2 ** ts.shattering_size(T) for T in rec.details["Ts"]]
    assert min(rec.details["min_weight_on_target"]) >= rec.details["proof_lower_bound"]


@pytest.mark.parametrize("cid", ["edelman-ch4-propA18-symmetric-exact", "edelman-ch4-propA18-general-exact"])
def test_exact_rational_pipeline_runs_at_quick_scale(cid):
    """Every case with T = exact_T is checked on all 2^T contexts (at quick scale too), and the count is recorded."""
    cfg = registry()[cid].configs["quick"]
    rec = record(cid)
    per_mapping = sum(1 for s in cfg.s_values if s <= cfg.exact_T)
    expected = len(ts.MAPPINGS) * per_mapping * 2**cfg.exact_T
    assert rec.details["exact_contexts_checked"] == expected > 0
    assert rec.details["exact_rational_pipeline"] is True


def test_exact_T_outside_the_cases_is_refused():
    with pytest.raises(ValueError, match="exact_T must be one of small_T"):
        cons.RepresentationConfig(symmetric=True, exact_T=6)
    with pytest.raises(ValueError, match="exact_T"):
        cons.RepresentationConfig(symmetric=False, small_T=(5, 8), large_T=(1000,), exact_T=1000)


def _scaled_wv(real):
    """W_V scaled by 6/5: still within every stated bound (||W_V|| <= 2 or 2s), so only the closed form can catch it."""

    def build(lemma, T, I, output):
        c = real(lemma, T, I, output)
        heads = tuple(
            dataclasses.replace(h, W_V=ts.RankOneSum(tuple((Fraction(6, 5) * k, u, w) for k, u, w in h.W_V.terms)))
            for h in c.heads
        )
        return dataclasses.replace(c, heads=heads)

    return build


def test_norm_claim_compares_closed_forms_not_the_matrices_with_themselves(monkeypatch):
    """The prediction comes from the closed forms alone: a construction whose W_V is 6/5 of the proof's fails."""
    claim = registry()["edelman-ch4-prop4.12-norms"]
    small = cons.NormsConfig(Ts=(10, 100), s_values=(1, 2), mlp_s=(1,))
    ok = evaluate(
        dataclasses.replace(claim, configs={"quick": small}),
        RunContext(scale="quick", options=RunOptions(progress=False)),
    )
    assert ok.verdict == "pass", ok.reason
    monkeypatch.setattr(cons, "construction", _scaled_wv(cons.construction))
    bad = evaluate(
        dataclasses.replace(claim, configs={"quick": small}),
        RunContext(scale="quick", options=RunOptions(progress=False)),
    )
    assert bad.verdict == "fail", bad.reason


def _trend(ms, Ts=(8, 16, 32), grid=None, predicted=None):
    """One replicate's problems (:func:`trained.replicate_trend`) for thresholds ``ms``."""
    from verify.claims.sparse_variable import trained

    sweep = trained.SWEEP_QUICK if grid is None else dataclasses.replace(trained.SWEEP_QUICK, Ts=Ts, ms=grid)
    cfg = trained.Fig42Config(sweep=sweep)
    info = [float(v) for v in (predicted or trained._predict_fig42(cfg))["info_bits"]]
    return trained.replicate_trend(list(Ts), [float(m) for m in ms], info, cfg)[1]


WIDE_T = (8, 64, 512, 4096)
WIDE_GRID = tuple(range(5, 401, 5))


def test_log_trend_rejects_a_linear_law_at_the_quick_setting():
    """The audit's case: m proportional to T on the quick T (ratio spread 1.89 < 2, which passed before)."""
    assert any("censored" in p for p in _trend((15, 30, 60)))
    problems = _trend((15, 30, 60), grid=(10, 15, 20, 30, 40, 60))
    assert any("theta = 1.00" in p for p in problems)
    Ts = (100, 200, 400, 800)
    assert any("exponent" in p for p in _trend([T // 10 for T in Ts], Ts=Ts, grid=(5, 10, 20, 40, 80)))


def test_quick_T_cannot_tell_log_from_sqrt_and_wide_T_can():
    """log2 C(T, 3) grows faster than sqrt(T) on T in {8, 16, 32}: no quick replicate can show the log T trend (the
    claim is declared underpowered there); on T up to 4096 a sqrt(T) law fails and the log law passes."""
    ms = [round(5 * float(ts.and_information_bound(T))) for T in (8, 16, 32)]  # 29, 46, 61
    assert [p for p in _trend(ms, grid=(10, *ms, 80)) if "cannot tell" not in p] == []
    assert any("cannot tell log T from sqrt(T)" in p for p in _trend(ms, grid=(10, *ms, 80)))
    log_law = [5 * round(float(ts.and_information_bound(T))) for T in WIDE_T]
    assert _trend(log_law, Ts=WIDE_T, grid=WIDE_GRID) == []
    sqrt_law = [5 * round(math.sqrt(T)) for T in WIDE_T]  # 15, 40, 115, 320
    assert any("theta_sqrt" in p for p in _trend(sqrt_law, Ts=WIDE_T, grid=WIDE_GRID))


def test_log_trend_reads_the_prediction():
    """The same thresholds fail when the prediction is another law (T, or sqrt(T), in place of log2 C(T, 3))."""
    log_law = [5 * round(float(ts.and_information_bound(T))) for T in WIDE_T]
    assert any("no trend fit" in p for p in _trend(log_law, Ts=WIDE_T, grid=WIDE_GRID, predicted={"info_bits": WIDE_T}))
    roots = [math.sqrt(T) for T in WIDE_T]
    assert any("spreads" in p for p in _trend(log_law, Ts=WIDE_T, grid=WIDE_GRID, predicted={"info_bits": roots}))


def _replicated(thresholds, Ts=WIDE_T, grid=WIDE_GRID):
    from verify.claims.base import Observation
    from verify.claims.sparse_variable import trained

    cfg = trained.Fig42Config(
        sweep=dataclasses.replace(trained.SWEEP_QUICK, Ts=Ts, ms=grid, trials=6 * len(thresholds)),
        replicates=len(thresholds),
    )
    obs = Observation(
        {"thresholds": thresholds[0]}, details={"Ts": list(Ts), "replicate_thresholds": [list(m) for m in thresholds]}
    )
    return trained.LogTrend()(trained._predict_fig42(cfg), obs, cfg), trained.LogTrend().population(
        trained._predict_fig42(cfg), obs, cfg
    )


def test_log_trend_population_over_replicates():
    """8 replicates on the log law pass; 8 on a sqrt(T) law fail; one replicate cannot decide (inconclusive)."""
    log_law = [5 * round(float(ts.and_information_bound(T))) for T in WIDE_T]
    sqrt_law = [5 * round(math.sqrt(T)) for T in WIDE_T]  # 15, 40, 115, 320
    (verdict, reason), pop = _replicated([log_law] * 8)
    assert verdict == "pass" and pop["successes"] == 8 and pop["n"] == 8, reason
    assert _replicated([sqrt_law] * 8)[0][0] == "fail"
    assert _replicated([log_law])[0][0] == "inconclusive"
    assert _replicated([log_law] * 4 + [sqrt_law] * 4)[0][0] == "inconclusive"


def test_replicate_thresholds_split_the_trials_of_every_cell():
    from verify.claims.sparse_variable import trained

    sweep = dataclasses.replace(trained.SWEEP_QUICK, Ts=(8,), ms=(15, 20), trials=4, restarts=2)
    cfg = trained.Fig42Config(sweep=sweep, replicates=2)
    good, bad = [1.0, 0.5], [0.5, 0.5]  # one trial's two restarts: any one > 0.99 succeeds
    cells = [
        {"T": 8, "m": 15, "best_val": good + good + bad + bad},  # replicate 0 reaches 100 % at m = 15
        {"T": 8, "m": 20, "best_val": good * 4},
    ]
    assert trained.replicate_thresholds(cfg, cells) == [[15.0], [20.0]]
    assert trained.replicate_thresholds(cfg, [{"T": 8, "m": 15, "best_val": []}]) == [[math.inf], [math.inf]]
    assert trained.LogTrend().planned_runs(cfg) == 2


def _fig43_rows(masses, acc=1.0):
    return [
        {"seed": i, "val_acc": acc, "irrelevant_max": m, "irrelevant_min": m / 2, "irrelevant_mean_label1": m}
        for i, m in enumerate(masses)
    ]


def test_sparse_attention_population_and_prediction():
    """Fig. 4.3: 12 sparse seeds pass, 12 sink seeds fail, 4 seeds (the quick scale) cannot decide; a seed below the
    accuracy fails; a prediction moved by the perturbation test (irrelevant weight 0 -> 0.01 per bit, 0.47 of mass)
    fails every sparse seed."""
    from verify.claims.base import Observation
    from verify.claims.sparse_variable import trained

    claim = registry()["edelman-ch4-fig4.3-sparse-attention"]
    cfg = claim.configs["quick"]
    pred = trained._predict_fig43(cfg)
    judge = claim.judge

    def verdict(rows, p=pred):
        return judge(p, Observation({}, details={"per_seed": rows}), cfg)

    assert verdict(_fig43_rows([0.04] * 12))[0] == "pass"
    assert verdict(_fig43_rows([0.6] * 12))[0] == "fail"
    assert verdict(_fig43_rows([0.04] * 4))[0] == "inconclusive"
    assert verdict(_fig43_rows([0.04] * 12, acc=0.9))[0] == "fail"
    wrong = judge.perturb(pred, None)
    assert all(judge.seed_problems(wrong, _fig43_rows([0.04] * 4), cfg))
    assert judge.planned_runs(cfg) == 4 and judge.planned_runs(claim.configs["full"]) == 12


def _parity_row(T=8, seed=0, plateau_loss=0.6933, plateau_evals=10, reached=700, rise_share=0.15):
    return {
        "T": T,
        "seed": seed,
        "plateau_evals": plateau_evals,
        "plateau_loss": plateau_loss,
        "reached_final_at": reached,
        "rise_share": rise_share,
        "best_acc": 1.0,
    }


def test_phase_transition_population_and_prediction():
    """Fig. 4.4, per (T, seed) run: transitions in all runs pass, none fail, the plateau must sit at the predicted
    log 2 (a chance level off by 1.5 loss_tol fails every run), and a run that never leaves chance or leaves it at once fails. 20 runs (the
    full scale's count); the 4 quick runs cannot decide."""
    from verify.claims.base import Observation

    claim = registry()["edelman-ch4-fig4.4-parity-transition"]
    cfg, judge = claim.configs["quick"], claim.judge
    pred = claim.predict(cfg)
    n = judge.planned_runs(claim.configs["full"])
    assert judge.planned_runs(cfg) == 4 and n == 20

    def verdict(rows, p=pred):
        return judge(p, Observation({}, details={"per_run": rows}), cfg)[0]

    good = [_parity_row(seed=i) for i in range(n)]
    assert verdict(good) == "pass" and verdict(good[:4]) == "inconclusive"
    assert verdict([_parity_row(seed=i, reached=None, rise_share=None) for i in range(n)]) == "fail"
    assert verdict([_parity_row(seed=i, plateau_evals=1) for i in range(n)]) == "fail"
    off = {**pred, "chance_loss": float(pred["chance_loss"]) + 1.5 * cfg.loss_tol}
    assert verdict(good, off) == "fail"


def test_coherent_corrected_compares_the_exact_worst_case_and_can_fail():
    """The exact worst case over all contexts is predicted and observed (no insensitive exemption): a prediction
    moved by the perturbation test is rejected, and the maximiser is among the observed contexts."""
    claim = registry()["edelman-ch4-lemA19-coherent-corrected"]
    assert claim.insensitive is None
    ev = evaluate(claim, RunContext(scale="quick", options=RunOptions(progress=False)))
    assert ev.verdict == "pass", ev.reason
    assert ev.obs.value[0] == pytest.approx(float(ev.predicted[0]), rel=1e-12)
    # the maximiser (relevant bits 1, others 0) or its complement (all signs flipped: the same |error|)
    rel, others = ev.obs.details["worst_relevant_bits"], ev.obs.details["worst_other_bits_set"]
    assert (rel, others) in (([1, 1, 1], 0), ([0, 0, 0], ev.config.T - 3))
    assert ev.obs.details["within_gamma_over_4"] and ev.obs.value[0] < float(Fraction(ev.obs.details["gamma_over_4"]))
    assert claim.judge(claim.judge.perturb(ev.predicted, ev.obs), ev.obs, ev.config)[0] == "fail"


def test_errata_kinds():
    kinds = {
        "edelman-ch4-lemA19-multihead-printed": "typo",
        "edelman-ch4-lemA25-bump-printed": "substantive",
        "edelman-ch4-lemA23-delta-printed": "substantive",
        "edelman-ch4-lemA25-w1-bound-printed": "substantive",
        "edelman-ch4-lemA19-coherent-printed": "substantive",
    }
    ours = {cid: c for cid, c in registry().items() if cid.startswith("edelman-ch4-")}
    assert {cid for cid, c in ours.items() if c.refuting} == set(kinds)
    for cid, kind in kinds.items():
        e = ours[cid].erratum
        assert e.kind == kind and e.where.startswith("Edelman thesis (2024), App. A.2"), cid


def _overfit_rows(n, *, below=0.7, above=1.0, train=1.0):
    return [
        {"seed": i, "val_acc_below": below, "train_acc_below": train, "val_acc_above": above, "train_acc_above": 1.0}
        for i in range(n)
    ]


def test_overfitting_below_threshold_population_and_prediction():
    """Fig. 4.3 left: 8 trials that overfit at m_below and generalise at m_above pass; a trial that generalises at
    m_below (0.995 > 0.99), does not fit its training set (0.95), or stays at 0.99 at m_above fails; a predicted
    threshold outside (m_below, m_above), or an information bound above m_below, fails every trial."""
    from verify.claims.base import Observation
    from verify.claims.sparse_variable import overfitting

    claim = registry()["edelman-ch4-fig4.3-overfitting-below-threshold"]
    cfg = claim.configs["quick"]
    pred = overfitting._predict(cfg)
    assert cfg.m_below < float(pred["threshold"]) < cfg.m_above
    judge = claim.judge

    def verdict(rows, p=pred):
        return judge(p, Observation({}, details={"per_seed": rows}), cfg)[0]

    assert verdict(_overfit_rows(8)) == "pass"
    assert verdict(_overfit_rows(8, below=0.995)) == "fail"
    assert verdict(_overfit_rows(8, train=0.95)) == "fail"
    assert verdict(_overfit_rows(8, above=0.99)) == "fail"
    assert verdict(_overfit_rows(8)[:6] + _overfit_rows(2, below=1.0)) == "inconclusive"
    for moved in ({**pred, "threshold": cfg.m_below - 1}, {**pred, "threshold": cfg.m_above + 1}):
        assert all(judge.seed_problems(moved, _overfit_rows(8), cfg))
    assert all(judge.seed_problems({**pred, "information_bound": cfg.m_below + 1}, _overfit_rows(8), cfg))
    assert judge.planned_runs(cfg) == 8 and judge.planned_runs(claim.configs["full"]) == 40
    full = claim.configs["full"]
    assert (full.run.T, full.m_below, full.m_above, full.run.restarts) == (300, 50, 200, 5)
    assert overfitting.straddle_problem(overfitting._predict(full), full) is None
