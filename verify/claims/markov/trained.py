"""Edelman thesis Ch. 8 / App. E: trained models on in-context Markov chains (training claims; docs/attention.md).

The minimal model (Eq. (8.8)) trained by SGD as in App. E.2, and attention-only transformers with relative
positions (Eqs. (8.4)-(8.5)), trained by :mod:`verify.train.markov` on ``ctx.device``. Predicted values are the
strategies' test KLs (Monte Carlo by ``numerics.markov``, with standard errors), the bigram construction of
Fact 8.3 (``W_k = I``, ``v = e_2``) and the attention targets of Prop. 8.2 (previous token; successors of earlier
copies of the current token). The quick settings are smaller than the thesis's and were chosen for a 2-core CPU
(docs/attention.md says which and why); the full-scale configs use the thesis's settings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from numerics import markov as nm
from theory import markov as tm
from verify.runtime.options import RunOptions
from verify.train import markov as vm
from verify.train.attention import AttentionConfig

from ..base import Claim, Deviation, Observation, PostHoc, Resolution, RunContext, register, registry
from ..judges import MC_Z, Check, PerSeed, Population
from ..training import run_checkpointed

SRC = "Edelman thesis, Ch. 8"
STRATEGIES = ("uniform", "unigram", "bigram")

# --- settings

#: The seed-population rule of every claim here (docs/verdicts.md): each claim says what a trained network
#: typically does (the thesis shows it for every one of its seeds), so p0 = 0.5 ("more often than not"), and the power
#: is against p_alt = 0.95 (the thesis's runs all show it). 8 seeds give power 0.943 (7 of 8 still pass); the full
#: scale's 10 give 0.914.
POPULATION = Population(p0=0.5, p_alt=0.95)
QUICK_SEEDS = tuple(range(8))

#: Minimal model, thesis settings (App. E.2: SGD, batch 64, lr 2e-3, k = 2, t = 100; Fig. 8.3 init W_k = 0, v = 0.02).
MINIMAL_EARLY = vm.MinimalModelConfig(steps=150, seeds=QUICK_SEEDS, eval_every=25, eval_n=1000, dtype="float32")
#: Minimal model run to convergence. Quick: lr 10x the thesis's, so that the test KL is on its plateau by step ~200
#: (8 seeds, 1000 steps: every seed within 0.037-0.052 from step 200 on, cos(W_k, I) 0.970-0.972 at the end); 600
#: steps leave the last quarter (4 evaluations) on the plateau.
MINIMAL_CONVERGED_QUICK = vm.MinimalModelConfig(
    steps=600, lr=2e-2, seeds=QUICK_SEEDS, eval_every=50, eval_n=1000, dtype="float32"
)
MINIMAL_CONVERGED_FULL = vm.MinimalModelConfig(steps=20_000, seeds=tuple(range(10)), eval_every=500, eval_n=4000)


def _tf(k: int, t: int, layers: int, heads: int = 1, **kw: Any) -> vm.TransformerConfig:
    """d = 16 (Sec. 8.3); with 3 heads (Fig. 8.5) each head is 16 wide, since 3 does not divide 16."""
    arch = AttentionConfig(vocab=k, max_len=t, layers=layers, heads=heads, head_width=16 if 16 % heads else None)
    return vm.TransformerConfig(k=k, t=t, model=arch, **kw)


#: Quick transformer setting (chosen for a 2-core CPU, docs/attention.md): k = 2, t = 50, AdamW lr 3e-3, 8 seeds,
#: 1500 steps, evaluated every 50 steps on 500 test chains. Seeds 0-7 at 1000 steps: on the unigram plateau from step
#: ~100 to 350-950, all nearest the bigram strategy by step 1000 (0.11-0.33 of the way back to the unigram KL); seeds
#: 1000-1007 at 1000 steps: two still on the plateau, so the run keeps the 1500 steps it had with 4 seeds (at 1500:
#: seeds 0-7 all past the drop; seed 1007 still on the plateau, 7 of 8 pass: docs/markov.md).
TF_QUICK = dict(steps=1500, lr=3e-3, seeds=QUICK_SEEDS, eval_every=50, eval_n=500)
#: The quick phase run's seeds (``edelman-ch8-transformer-phases``, ``-induction-head``): 40, not 8. Pass rates at
#: this setting (docs/markov.md, "Seeds and steps of the quick transformer"): 28 of 32 in a pilot (seeds 0-15 and
#: 1000-1015), then 19 of 24 and 21 of 24 on seeds 0-23 and 1000-1023 (40 of 48 distinct seeds, 0.833); at that rate
#: 8 fresh seeds miss ``pass`` with probability 0.39, 24 with 0.035, 40 with 0.0013, and more steps (2000) left the
#: same seeds on the plateau. Chosen from those runs before any run of 40 (``POST_HOC_SEEDS``).
TF_PHASE_SEEDS = tuple(range(40))
#: The thesis's transformer settings (Sec. 8.3, App. E.2, Fig. E.3: AdamW lr 3e-5, batch 64, d = 16, t = 100, 10 seeds).
TF_FULL = dict(steps=40_000, lr=3e-5, seeds=tuple(range(10)), eval_every=500, eval_n=4000)

# --- deviations from the thesis's settings (besides sizes), per scale (docs/verdicts.md)

MINIMAL_LR = Deviation(
    "learning rate (SGD, minimal model)",
    "2e-3 (Edelman thesis, App. E.2: 'SGD with batch size 64 and learning rate 2e-3')",
    "2e-2",
    "at the thesis's 2e-3 the quick run was still far from its plateau after 500 steps; at 2e-2 it plateaus by step "
    "~300 (docs/attention.md)",
)
TF_LR = Deviation(
    "learning rate (AdamW, transformer)",
    "3e-5 (Edelman thesis, Sec. 8.3 and App. E.2, Fig. E.3)",
    "3e-3",
    "at 3e-5 the drop to the bigram strategy needs tens of thousands of steps; 100x the rate finishes it within the "
    "quick budget on a 2-core CPU (lr 1e-3 left a seed on the plateau after 2000 steps; docs/attention.md)",
)
TF_T = Deviation(
    "context length t",
    "t = 100 (Edelman thesis, Sec. 8.3 and App. E.2)",
    "t = 50",
    "the attention cost grows like t^2; t = 50 still has enough transitions for the bigram strategy to beat the "
    "unigram one by a factor of five (0.018 against 0.091)",
)
TF_QUICK_DEVIATIONS = (TF_LR, TF_T)

# --- thresholds chosen after seeing a result (docs/markov.md, "Where the thresholds come from")

_FIRST_MINIMAL = "after the first quick run of the minimal model (docs/attention.md)"
POST_HOC_DIAG = PostHoc(
    "min_diag_ratio",
    "2",
    _FIRST_MINIMAL,
    "the thesis says 'diagonal-dominant' without a number; the quick runs give 7-9, and 2 is still far above the "
    "ratio 1 of a W_k whose off-diagonal entries match its diagonal",
)
POST_HOC_WINDOW = PostHoc(
    "CloserToBigram.frac",
    "0.5",
    _FIRST_MINIMAL + ", which showed plateau KLs of about 0.04",
    "'closer to the bigram strategy than to the unigram one' (the midpoint 0.047): the minimal model cannot reach the "
    "bigram strategy's 0.0094 (its logits are counts), and a model at the unigram level (0.085) fails",
)
POST_HOC_COS = PostHoc(
    "min_cos_w, min_cos_v",
    "0.9, 0.8",
    _FIRST_MINIMAL + ", which showed cos(W_k, I) of about 0.97",
    "the thesis states a limit direction, not a number; a W_k with equal diagonal and off-diagonal entries has cos "
    "0.71 and fails",
)
POST_HOC_PHASES = PostHoc(
    "ThreePhases: plateau_evals, end_frac (start_rel 0.1, plateau_rel 0.25 kept)",
    "3 consecutive evaluations; 0.35",
    "issue 28, after the quick runs at 1500 steps (plateau from step 100, end 0.11-0.25 of the way back to the unigram "
    "KL; the earlier judge's numbers 0.1, 0.25 and 0.5 have no record of when they were chosen)",
    "a plateau must last several evaluations (one evaluation passing near the unigram KL on the way down is not a "
    "phase), and the end must be near the bigram KL (within about a third of the unigram-bigram gap), not only half-way",
)
POST_HOC_SEEDS = PostHoc(
    "seeds of the quick transformer run",
    "40 (seeds 0-39; 8 until 2026-11-30)",
    "2026-11-30 (docs/markov.md, 'Seeds and steps of the quick transformer'): a pilot passed 28 of 32 seeds at 1500 "
    "steps (29 of 32 at 2000), which chose 24; the first runs of 24 passed 19 of 24 (seeds 0-23) and 21 of 24 "
    "(1000-1023)",
    "at the pooled rate 40 of 48 a fresh set of 8 seeds misses pass with probability 0.39, of 24 with 0.035, of 40 with "
    "0.0013 (the 1 % target of docs/verdicts.md); more steps did not move the seeds that stay on the plateau",
)
POST_HOC_INDUCTION = PostHoc(
    "MIN_INDUCTION_EXCESS",
    "0.25",
    "not recorded; read as after the first quick transformer run (excess 0.4-0.7)",
    "a quarter of the way from a uniform causal row to all the mass on the successors of the current token's copies: "
    "an untrained layer 2 has excess 0",
)
POST_HOC_FLOOR = PostHoc(
    "one-layer floor",
    "the counts-Bayes KL (0.075 at k = 2, t = 50) less 4 combined standard errors",
    "after quick runs had sat at the earlier bound 0.9 x the unigram strategy's KL (0.0817)",
    "the best predictor given the current token and the token counts is the information a one-layer model has; the "
    "earlier bound was below what that information allows (docs/attention.md)",
)


@dataclass(frozen=True)
class MinimalStructureConfig:
    """Early SGD on the minimal model; ``min_diag_ratio`` bounds min diag / max |off-diagonal| of W_k."""

    train: vm.MinimalModelConfig = MINIMAL_EARLY
    min_diag_ratio: float = 2.0
    even_lags: tuple[int, ...] = (2, 4, 6)


@dataclass(frozen=True)
class MinimalConvergedConfig:
    """The minimal model trained to its plateau; strategy KLs by ``mc_chains`` Monte-Carlo chains. The plateau KL of
    a seed is its mean test KL over the evaluations in the last ``plateau_share`` of the steps (SGD at a constant
    learning rate keeps fluctuating around the plateau: single evaluations of the quick run spread over 0.037-0.052).

    ``min_cos_w`` and ``min_cos_v`` are the per-seed lower bounds on cos(W_k, I) and cos(v, e_2) of
    ``edelman-ch8-minimal-bigram-direction`` (Fact 8.3's direction W_k = I, v = e_2). They were written after a first
    quick run had shown cos(W_k, I) of about 0.97 (docs/markov.md and docs/attention.md, "Where the thresholds come
    from"); the thesis states a limit direction, not a number, so they are not the thesis's. What they still test: a
    W_k with off-diagonal mass comparable to its diagonal (k = 2: cos <= 1/sqrt(2) = 0.71 when they are equal) or a v
    not peaked at lag 2 fails."""

    train: vm.MinimalModelConfig = MINIMAL_CONVERGED_QUICK
    mc_chains: int = 40_000
    mc_seed: int = 7
    plateau_share: float = 0.25
    min_cos_w: float = 0.9
    min_cos_v: float = 0.8


@dataclass(frozen=True)
class TransformerClaimConfig:
    """A transformer ensemble and the Monte-Carlo size of the strategy KLs it is compared with."""

    train: vm.TransformerConfig = field(default_factory=lambda: _tf(2, 50, 2, **{**TF_QUICK, "seeds": TF_PHASE_SEEDS}))
    mc_chains: int = 40_000
    mc_seed: int = 7


@dataclass(frozen=True)
class PriorsConfig:
    """Fig. 8.4a: k = 4 transformers trained on doubly stochastic chains and on the 50/50 mixture with iid-token
    chains; ``target_frac`` places the KL target between the bigram and unigram strategies' KLs."""

    doubly_stochastic: vm.TransformerConfig
    mixture: vm.TransformerConfig
    target_frac: float = 0.5
    mc_chains: int = 20_000
    mc_seed: int = 7


# --- shared runs and predictions (one training run serves several claims)


@functools.lru_cache(maxsize=16)
def _trained(tag: str, train: Callable[[Any, RunOptions], vm.MarkovRun], cfg: Any, ctx: RunContext) -> vm.MarkovRun:
    """``train(cfg, options)`` once per trainer, configuration and context, checkpointed under ``ctx.workdir`` as
    ``tag``."""
    return run_checkpointed(ctx, tag, cfg, lambda options: train(cfg, options))


def _minimal(cfg: vm.MinimalModelConfig, ctx: RunContext) -> vm.MarkovRun:
    """The minimal model's run (App. E.2), shared by the claims that judge it."""
    return _trained("markov_minimal", vm.train_minimal, cfg, ctx)


def _transformer(cfg: vm.TransformerConfig, ctx: RunContext) -> vm.MarkovRun:
    """The transformer's run (Sec. 8.3), shared by the claims that judge it."""
    return _trained("markov_transformer", vm.train_transformer, cfg, ctx)


@functools.lru_cache(maxsize=16)
def strategy_kls(k: int, t: int, order: int, n: int, seed: int, prior: str = "dirichlet") -> dict[str, dict]:
    """Monte-Carlo test KL at the last of t tokens of every strategy (App. E.2), ``{name: {"kl", "stderr"}}``."""
    names = STRATEGIES + (("trigram",) if order == 3 else ())
    out = {}
    for i, name in enumerate(names):
        mean, se = nm.mc_strategy_kl(k, t, name, n, np.random.default_rng([seed, i]), prior=prior, order=order)
        out[name] = {"kl": mean, "stderr": se}
    return out


@functools.lru_cache(maxsize=8)
def exact_strategy_kls(t: int) -> dict[str, dict]:
    """The k = 2 strategies' test KLs at the last of t tokens, exact (``theory.markov.two_state_strategy_kl``, flat
    Dirichlet rows, x_1 ~ pi; ``stderr`` 0): about 1 s at t = 50, 12 s at t = 100 (docs/markov.md)."""
    return {s: {"kl": float(tm.two_state_strategy_kl(t, s)), "stderr": 0.0} for s in STRATEGIES}


def _predict_strategies(cfg: MinimalConvergedConfig | TransformerClaimConfig) -> dict[str, dict]:
    """The strategies' test KLs: exact for the transformer claims at k = 2 (Markov chains, flat Dirichlet prior,
    t <= ``theory.markov.MAX_EXACT_T``), else Monte Carlo with standard errors (the minimal model's t = 100 would
    take ~12 s exactly, its judge's window being far wider than the Monte Carlo error)."""
    tr = cfg.train
    order = getattr(tr, "order", 2)
    if (
        isinstance(cfg, TransformerClaimConfig)
        and (tr.k, order, tr.prior) == (2, 2, "dirichlet")
        and tr.t <= tm.MAX_EXACT_T
    ):
        return exact_strategy_kls(tr.t)
    return strategy_kls(tr.k, tr.t, order, cfg.mc_chains, cfg.mc_seed)


def _history_artifact(run: vm.MarkovRun) -> list[dict[str, Any]]:
    keys = ("step", "kl", "kl_to_uniform", "kl_to_unigram", "kl_to_bigram", "kl_to_trigram", "prev", "induction")
    return [{k: h[k] for k in keys if k in h} for h in run.history]


def _kl_plot(name: str, run: vm.MarkovRun, predicted: dict[str, dict]) -> dict[str, Any]:
    steps = [h["step"] for h in run.history]
    series = [
        {"label": f"seed {s}", "x": steps, "y": [h["kl"][i] for h in run.history]} for i, s in enumerate(run.seeds)
    ]
    return {
        "name": name,
        "kind": "lines",
        "series": series,
        "hlines": [{"y": p["kl"], "label": f"{n} strategy"} for n, p in predicted.items()],
        "xlabel": "step",
        "ylabel": "test KL at the last token",
        "yscale": "log",
        "title": "test KL against the strategies (Fig. 8.1 top)",
    }


def _strategy_distance_plot(run: vm.MarkovRun) -> dict[str, Any]:
    steps = [h["step"] for h in run.history]
    names = [n for n in ("uniform", "unigram", "bigram", "trigram") if f"kl_to_{n}" in run.history[0]]
    return {
        "name": "kl-to-strategies",
        "kind": "lines",
        "series": [{"label": n, "x": steps, "y": [h[f"kl_to_{n}"][0] for h in run.history]} for n in names],
        "xlabel": "step",
        "ylabel": "KL(strategy || model), seed 0",
        "yscale": "log",
        "title": "distance to each strategy (Fig. 8.1 bottom)",
    }


# --- Fig. 8.4b (App. E.2): early SGD on the minimal model


def _plateau(run: vm.MarkovRun, share: float) -> list[dict[str, Any]]:
    """The evaluations in the last ``share`` of the run (at least the final one)."""
    last = run.history[-1]["step"]
    tail = [h for h in run.history if h["step"] >= (1 - share) * last]
    return tail or [run.history[-1]]


def _minimal_rows(run: vm.MarkovRun, cfg: MinimalStructureConfig | MinimalConvergedConfig) -> list[dict[str, Any]]:
    tail = _plateau(run, cfg.plateau_share) if isinstance(cfg, MinimalConvergedConfig) else [run.history[-1]]
    rows = []
    for i in range(len(run.seeds)):
        W, v = run.state["W"][i].numpy(), run.state["v"][i].numpy()
        off = np.abs(W[~np.eye(len(W), dtype=bool)]).max()
        row = {
            "seed": int(run.seeds[i]),
            "kl": run.final["kl"][i],
            "plateau_kl": float(np.mean([h["kl"][i] for h in tail])),
            "plateau_evaluations": len(tail),
            "diag_ratio": float(np.diag(W).min() / max(off, 1e-300)),
            "v_argmax_lag": int(np.argmax(v)) + 1,
            "v_first": v[:8].tolist(),
        }
        if isinstance(cfg, MinimalConvergedConfig):  # the direction judge compares them with the prediction
            row["W"], row["v"] = W.tolist(), v.tolist()
        if isinstance(cfg, MinimalStructureConfig):
            row["even_odd"] = all(v[j - 1] > max(v[j - 2], v[j]) for j in cfg.even_lags)
        rows.append(row)
    return rows


def _v_profile_plot(run: vm.MarkovRun, lags: int = 16) -> dict[str, Any]:
    return {
        "name": "v-profile",
        "kind": "lines",
        "series": [
            {"label": f"seed {s}", "x": list(range(1, lags + 1)), "y": run.state["v"][i, :lags].tolist(), "marker": "o"}
            for i, s in enumerate(run.seeds)
        ],
        "xlabel": "lag j (v_j)",
        "ylabel": "v_j",
        "title": "minimal model: positional weights v (Fig. 8.4b)",
    }


def _W_plot(run: vm.MarkovRun) -> dict[str, Any]:
    k = run.state["W"].shape[1]
    return {
        "name": "W",
        "kind": "heatmap",
        "x": list(range(k)),
        "y": list(range(k)),
        "panels": [{"title": f"W_k, seed {s}", "z": run.state["W"][i].tolist()} for i, s in enumerate(run.seeds)],
        "xlabel": "key token",
        "ylabel": "query token",
        "zlabel": "entry of W_k",
    }


def _predict_construction(cfg: MinimalStructureConfig | MinimalConvergedConfig) -> dict[str, Any]:
    """The bigram construction of Fact 8.3 (W_k = I, v = e_2), which the trained weights should approach."""
    W, v = nm.bigram_construction(cfg.train.k, cfg.train.t)
    return {"W_k": W.tolist(), "v_argmax_lag": int(np.argmax(v)) + 1}


@dataclass(frozen=True)
class PerSeedAndPredicted(PerSeed):
    """:class:`PerSeed` (bounds read from the config where they name a config field) and, for each
    ``(field, label)`` of ``match``, every seed's ``row[field]`` equal to the prediction's ``predicted[field]`` (e.g.
    the argmax lag of v against the lag of Fact 8.3's construction, ``v = e_2``), so that a prediction of another
    construction changes the verdict."""

    match: tuple[tuple[str, str], ...] = ()
    rule: Population = POPULATION

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        for f, label in self.match:
            want = predicted[f]
            for row, found in zip(per_seed, problems):
                if row.get(f) != want:
                    found.append(f"{label} {row.get(f)} != predicted {want}")
        return problems

    def describe(self) -> str:
        matched = ", ".join(f"{label} = predicted {f}" for f, label in self.match)
        return super().describe() + (f"; {matched}" if matched else "")


@dataclass(frozen=True)
class DirectionOfConstruction(PerSeedAndPredicted):
    """:class:`PerSeedAndPredicted` on rows extended, here, with each seed's cosines to the predicted construction:
    ``cos_W`` = cos(W_k, predicted ``W_k``) and ``cos_v`` = cos(v, e_lag) for the predicted ``v_argmax_lag`` (read
    from each row's learned ``W`` and ``v``), so a prediction of another construction changes them."""

    @staticmethod
    def cosines(predicted: dict[str, Any], row: dict[str, Any]) -> dict[str, float]:
        W, W_star = np.asarray(row["W"], float), np.asarray(predicted["W_k"], float)
        v, lag = np.asarray(row["v"], float), float(predicted["v_argmax_lag"])
        on_lag = v[int(lag) - 1] if lag == int(lag) and 1 <= lag <= len(v) else 0.0
        return {
            "cos_W": float((W * W_star).sum() / (np.linalg.norm(W) * np.linalg.norm(W_star))),
            "cos_v": float(on_lag / np.linalg.norm(v)),
        }

    def _counts(self, predicted: Any, obs: Any, config: Any) -> tuple[list[list[str]], list[dict[str, Any]]]:
        rows = [{**r, **self.cosines(predicted, r)} for r in obs.details[self.rows]]
        return self.seed_problems(predicted, rows, config), rows


def _observe_minimal_structure(cfg: MinimalStructureConfig, ctx: RunContext) -> Observation:
    run = _minimal(cfg.train, ctx)
    rows = _minimal_rows(run, cfg)
    return Observation(
        [r["diag_ratio"] for r in rows],
        details={"per_seed": rows, "steps": cfg.train.steps},
        artifacts={"training": _history_artifact(run), "plots": [_v_profile_plot(run), _W_plot(run)]},
        seeds=run.seeds,
    )


register(
    Claim(
        id="edelman-ch8-minimal-sgd-structure",
        resolution=Resolution(
            rel=0.01,
            why="the judge reads the predicted lag structure of v (its argmax and the diagonal ratio of W_k)",
            undetected="`W_k`: the predicted matrix is shown beside the learned one; the claim judges its diagonal ratio, not each entry",
        ),
        source=f"{SRC}, Fig. 8.4b and App. E.2 (minimal model, Eq. (8.8)); Lemma 8.4",
        statement="SGD on the minimal model (k = 2, t = 100, batch 64, lr 2e-3, cross-entropy, W_k = 0 and v = 0.02 "
        "at init) makes W_k diagonal-dominant and v peak at lag 2 with the even/odd pattern (even lags above their odd "
        "neighbours).",
        kind="training",
        configs={
            "quick": MinimalStructureConfig(),
            "full": MinimalStructureConfig(
                train=replace(MINIMAL_EARLY, seeds=tuple(range(10)), eval_n=4000, dtype=None)
            ),
        },
        predict=_predict_construction,
        observe=_observe_minimal_structure,
        judge=PerSeedAndPredicted(
            checks=(
                Check("diag_ratio", "min diag / max |off-diag| of W_k", lo="min_diag_ratio"),
                Check("even_odd", "v even lags above their odd neighbours", truthy=True),
            ),
            match=(("v_argmax_lag", "argmax lag of v"),),
            headline="diag_ratio",
        ),
        deviations={"quick": (), "full": ()},
        post_hoc=(POST_HOC_DIAG,),
    )
)


# --- App. E.2 / Sec. 8.4: the minimal model trained to its plateau


@dataclass(frozen=True)
class CloserToBigram(PerSeed):
    """A seed succeeds when its plateau test KL (``per_seed[i]["plateau_kl"]``) lies between the bigram strategy's
    KL (less ``z`` standard errors: a trained model cannot beat the near-Bayes bigram predictor) and ``frac`` of the
    way from it to the unigram strategy's KL; the verdict is the :class:`Population` rule on the successes.

    Why this window and not "KL near the bigram strategy's": the minimal model's logits are raw counts, not
    log-frequencies, so it cannot represent the bigram strategy; even the pure construction W_k = rho I, v = e_2 at
    its best rho for the last token reaches only about 0.023 (k = 2, t = 100), against 0.0094 for the strategy. The
    window ``frac = 0.5`` ("closer to bigram than to unigram") was written after a first quick run had shown plateau
    KLs of about 0.04 (midpoint 0.047); it still fails for a model stuck at the unigram level (0.085) or above.
    """

    checks: tuple[Check, ...] = ()
    headline: str = "plateau_kl"
    rule: Population = POPULATION
    frac: float = 0.5
    z: float = MC_Z

    def bounds(self, predicted: dict[str, dict]) -> tuple[float, float]:
        bi, uni = predicted["bigram"], predicted["unigram"]
        return bi["kl"] - self.z * bi["stderr"], bi["kl"] + self.frac * (uni["kl"] - bi["kl"])

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        lo, hi = self.bounds(predicted)
        return [
            [] if lo <= r["plateau_kl"] <= hi else [f"plateau KL {r['plateau_kl']:.4g} outside [{lo:.4f}, {hi:.4f}]"]
            for r in per_seed
        ]

    def describe(self) -> str:
        return (
            f"per seed: plateau test KL in [bigram KL - {self.z:g} SE, bigram KL + {self.frac:g} x (unigram KL - bigram "
            f"KL)] (closer to the bigram strategy than to the unigram one); {self.rule.describe()}"
        )


def _observe_minimal_converged(cfg: MinimalConvergedConfig, ctx: RunContext) -> Observation:
    run = _minimal(cfg.train, ctx)
    rows = _minimal_rows(run, cfg)
    predicted = _predict_strategies(cfg)
    return Observation(
        [r["plateau_kl"] for r in rows],
        details={"per_seed": rows, "steps": cfg.train.steps, "lr": cfg.train.lr},
        artifacts={
            "training": _history_artifact(run),
            "plots": [_kl_plot("kl", run, predicted), _strategy_distance_plot(run), _v_profile_plot(run)],
        },
        seeds=run.seeds,
    )


MINIMAL_CONVERGED = {"quick": MinimalConvergedConfig(), "full": MinimalConvergedConfig(train=MINIMAL_CONVERGED_FULL)}

register(
    Claim(
        id="edelman-ch8-minimal-kl-bigram",
        source=f"{SRC}, Sec. 8.4 and App. E.2 (minimal model trained to convergence; Fig. 8.3 bottom)",
        statement="Trained to convergence, the minimal model's test KL at the last token approaches the bigram "
        "strategy's: its plateau ends closer to the bigram strategy's KL than to the unigram strategy's (k = 2, "
        "t = 100).",
        kind="training",
        configs=MINIMAL_CONVERGED,
        predict=_predict_strategies,
        observe=_observe_minimal_converged,
        judge=CloserToBigram(),
        deviations={"quick": (MINIMAL_LR,), "full": ()},
        post_hoc=(POST_HOC_WINDOW,),
        insensitive="the window runs from the bigram strategy's KL to the midpoint between it and the unigram one's "
        "(0.009-0.047 at t = 100): a 1 % error in the strategy KLs moves its ends by 1 %, and the plateau KLs (about "
        "0.040) sit 15 % inside the upper end; a unigram KL 30 % low or a bigram KL four times too high would fail it",
    )
)

register(
    Claim(
        id="edelman-ch8-minimal-bigram-direction",
        resolution=Resolution(
            rel=0.01,
            why="the judge reads the predicted W_k through cos(learned W_k, predicted W_k) >= 0.9",
            undetected="`W_k`: one entry moved by 1 % changes that cosine by far less than its window (the direction, not each entry, is the statement)",
        ),
        source=f"{SRC}, Fact 8.3 and Sec. 8.4 (minimal model trained to convergence)",
        statement="The learned (W_k, v) of the minimal model converge in direction to the bigram construction of "
        "Fact 8.3: W_k proportional to I and v to e_2.",
        kind="training",
        configs=MINIMAL_CONVERGED,
        predict=_predict_construction,
        observe=_observe_minimal_converged,
        judge=DirectionOfConstruction(
            checks=(
                Check("cos_W", "cos(W_k, predicted W_k)", lo="min_cos_w"),
                Check("cos_v", "cos(v, e at the predicted lag)", lo="min_cos_v"),
            ),
            match=(("v_argmax_lag", "argmax lag of v"),),
            headline="cos_W",
        ),
        deviations={"quick": (MINIMAL_LR,), "full": ()},
        post_hoc=(POST_HOC_COS,),
    )
)


#: The variants at the source's learning rate (issue 29, item 5; docs/markov.md, "At the source's learning rate"):
#: the quick minimal-model run (8 seeds, 600 steps, t = 100) with App. E.2's SGD learning rate 2e-3 instead of 2e-2.
#: Both claims share one run, as the originals do. Reported, not presumed: the question is whether the quick verdicts
#: depend on the tenfold learning rate.
MINIMAL_SOURCE_HPARAMS = {
    "quick": MinimalConvergedConfig(train=replace(MINIMAL_CONVERGED_QUICK, lr=2e-3)),
    "full": MINIMAL_CONVERGED["full"],
}
for _original in ("edelman-ch8-minimal-kl-bigram", "edelman-ch8-minimal-bigram-direction"):
    _claim = registry()[_original]
    register(
        replace(
            _claim,
            id=f"{_original}-source-hparams",
            configs=MINIMAL_SOURCE_HPARAMS,
            deviations={"quick": (), "full": ()},  # the original's one quick deviation (MINIMAL_LR) is undone
            variant_of=_original,
            exploratory={
                "quick": "the original's quick setting raises App. E.2's SGD learning rate 2e-3 tenfold so that 600 "
                "steps reach the plateau; this variant reports whether the quick verdict depends on that change"
            },
            note=f"Variant of {_original} at App. E.2's learning rate 2e-3 (the original's quick setting uses 2e-2; "
            "its 8 seeds, 600 steps, k = 2 and t = 100 are kept). The full configuration is the original's, already "
            "at the source's learning rate.",
        )
    )


# --- Fig. 8.1 / Fig. E.3: the three phases of the two-layer transformer


@dataclass(frozen=True)
class ThreePhases(PerSeed):
    """Per seed, on the evaluations over training (Fig. 8.1), against the predicted strategy KLs:

    (i) **start**: at step 0 the test KL is within ``start_rel`` of the uniform strategy's KL;
    (ii) **plateau**: at least ``plateau_evals`` consecutive evaluations at which the model is closer (KL from the
    strategy to the model) to the unigram strategy than to every other one, with test KL within ``plateau_rel`` of
    the unigram strategy's;
    (iii) **end**: at the last evaluation the model is closest to the ``last`` strategy, with test KL at most
    ``end_frac`` of the way from that strategy's KL back to the ``before_last`` one's.

    A seed meeting all three succeeds; the verdict is the :class:`Population` rule on the successes. The per-seed
    rows are computed here (:meth:`phase_rows`) from the observation's raw evaluations (``obs.details["history"]``) and the
    prediction, with this judge's own parameters, so the registered judge's settings are the ones applied."""

    checks: tuple[Check, ...] = ()
    headline: str = "final_frac"
    rule: Population = POPULATION
    start_rel: float = 0.1
    plateau_rel: float = 0.25
    plateau_evals: int = 3
    end_frac: float = 0.35
    last: str = "bigram"
    before_last: str = "unigram"

    def phase_rows(
        self, predicted: dict[str, dict], history: list[dict[str, Any]], seeds: tuple[int, ...] = ()
    ) -> list[dict[str, Any]]:
        names = [n for n in ("uniform", "unigram", "bigram", "trigram") if n in predicted]
        uni, last, prev = predicted["unigram"]["kl"], predicted[self.last]["kl"], predicted[self.before_last]["kl"]
        out = []
        for i in range(len(history[0]["kl"])):

            def nearest(h: dict[str, Any], i: int = i) -> str:
                return min(names, key=lambda n: h[f"kl_to_{n}"][i])

            on = [nearest(h) == "unigram" and abs(h["kl"][i] / uni - 1) <= self.plateau_rel for h in history]
            best, run_start, longest = 0, 0, (0, 0)  # the longest stretch of consecutive plateau evaluations
            for j, flag in enumerate(on):
                best = best + 1 if flag else 0
                if best == 1:
                    run_start = j
                if best > longest[0]:
                    longest = (best, run_start)
            end = history[-1]
            out.append(
                {
                    "seed": int(seeds[i]) if i < len(seeds) else i,
                    "start_rel": history[0]["kl"][i] / predicted["uniform"]["kl"] - 1,
                    "plateau_steps": [h["step"] for h, flag in zip(history, on) if flag],
                    "plateau_evals": longest[0],
                    "plateau_from": history[longest[1]]["step"] if longest[0] else None,
                    "final_kl": end["kl"][i],
                    "final_nearest": nearest(end),
                    "final_frac": (end["kl"][i] - last) / (prev - last),
                }
            )
        return out

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = []
        for r in per_seed:
            found = []
            if abs(r["start_rel"]) > self.start_rel:
                found.append(f"start {r['start_rel']:+.3f} off the uniform KL")
            if r["plateau_evals"] < self.plateau_evals:
                found.append(f"unigram plateau of {r['plateau_evals']} evaluation(s) < {self.plateau_evals}")
            if r["final_nearest"] != self.last or r["final_frac"] > self.end_frac:
                found.append(f"ends nearest {r['final_nearest']}, fraction {r['final_frac']:.3f}")
            problems.append(found)
        return problems

    def _counts(self, predicted: Any, obs: Any, config: Any) -> tuple[list[list[str]], list[dict[str, Any]]]:
        history = obs.details.get("history") or []
        rows = self.phase_rows(predicted, history, tuple(obs.seeds)) if history else []
        return self.seed_problems(predicted, rows, config), rows

    def describe(self) -> str:
        return (
            f"per seed: |KL(step 0)/uniform KL - 1| <= {self.start_rel:g}; at least {self.plateau_evals} consecutive "
            f"evaluations nearest the unigram strategy with |KL/unigram KL - 1| <= {self.plateau_rel:g}; final "
            f"evaluation nearest the {self.last} strategy with (KL - {self.last} KL)/({self.before_last} KL - "
            f"{self.last} KL) <= {self.end_frac:g}; {self.rule.describe()}"
        )


PHASES = ThreePhases()


def _attention_plots(run: vm.MarkovRun, window: int = 12) -> list[dict[str, Any]]:
    T = len(run.extra["inputs"])
    lo = max(0, T - window)
    tokens = run.extra["inputs"][lo:]
    panels = [
        {"title": f"layer {li + 1}, seed {run.seeds[0]}", "z": m[0, 0, lo:, lo:].tolist()}
        for li, m in enumerate(run.extra["maps"])
    ]
    plots = [
        {
            "name": "attention",
            "kind": "heatmap",
            "x": [f"{lo + j + 1}:{x}" for j, x in enumerate(tokens)],
            "y": [f"{lo + j + 1}:{x}" for j, x in enumerate(tokens)],
            "panels": panels,
            "xlabel": "key position:token",
            "ylabel": "query position:token",
            "zlabel": "attention weight",
            "vmin": 0.0,
            "vmax": 1.0,
        }
    ]
    pos = run.extra.get("positional")
    if pos is not None:
        lags = list(range(min(16, pos.shape[1])))
        plots.append(
            {
                "name": "positional",
                "kind": "lines",
                "series": [
                    {"label": f"seed {s}", "x": lags, "y": pos[i, : len(lags)].tolist(), "marker": "o"}
                    for i, s in enumerate(run.seeds)
                ],
                "xlabel": "lag i - j",
                "ylabel": "mean relative score (layer 1)",
                "title": "effective positional encoding (Fig. 8.3 top)",
            }
        )
    over_training = _positional_over_training(run)
    if over_training is not None:
        plots.append(over_training)
    return plots


def _positional_over_training(run: vm.MarkovRun, lags: int = 9, rows: int = 10) -> dict[str, Any] | None:
    """Layer 1's effective positional encoding by lag (columns) at up to ``rows`` evaluations (rows), one panel per
    seed: where the previous-token bias and the even/odd pattern appear during training (Fig. 8.3 top, Fig. E.7)."""
    hist = [h for h in run.history if "positional" in h]
    if not hist:
        return None
    hist = hist[:: max(1, -(-len(hist) // rows))]
    lags = min(lags, len(hist[0]["positional"][0]))
    return {
        "name": "positional-over-training",
        "kind": "heatmap",
        "x": list(range(lags)),
        "y": [h["step"] for h in hist],
        "panels": [
            {"title": f"layer 1, seed {s}", "z": [h["positional"][i][:lags] for h in hist]}
            for i, s in enumerate(run.seeds)
        ],
        "xlabel": "lag i - j",
        "ylabel": "training step",
        "zlabel": "mean relative score (layer 1)",
        "cmap": "RdBu_r",
        "title": "effective positional encoding over training (Fig. 8.3 top, Fig. E.7)",
    }


def _kl_history(run: vm.MarkovRun) -> list[dict[str, Any]]:
    """The raw evaluations over training: ``step``, per-seed test ``kl`` and ``kl_to_<strategy>`` (KL from each
    strategy to the model), as measured; :class:`ThreePhases` judges them against the predicted strategy KLs."""
    return [{k: v for k, v in h.items() if k in ("step", "kl") or k.startswith("kl_to_")} for h in run.history]


def _observe_phases(cfg: TransformerClaimConfig, ctx: RunContext) -> Observation:
    """The test KLs over training, unjudged (the strategy KLs appear only as reference lines in the plot)."""
    run = _transformer(cfg.train, ctx)
    return Observation(
        list(run.final["kl"]),
        details={"history": _kl_history(run), "steps": cfg.train.steps, "lr": cfg.train.lr},
        artifacts={
            "training": _history_artifact(run),
            "plots": [
                _kl_plot("kl", run, _predict_strategies(cfg)),
                _strategy_distance_plot(run),
                *_attention_plots(run),
            ],
        },
        seeds=run.seeds,
    )


TRANSFORMER = {
    "quick": TransformerClaimConfig(),
    "full": TransformerClaimConfig(train=_tf(2, 100, 2, **TF_FULL), mc_chains=200_000),
}
TRANSFORMER_K3 = {"full": TransformerClaimConfig(train=_tf(3, 100, 2, **TF_FULL), mc_chains=200_000)}

register(
    Claim(
        id="edelman-ch8-transformer-phases",
        source=f"{SRC}, Fig. 8.1, Fig. 8.3 (top) and Fig. E.3 (two-layer attention-only transformer)",
        statement="A two-layer attention-only transformer with relative positions trained on in-context Markov chains "
        "(k = 2) goes through three phases: test KL near the uniform strategy's, a plateau near the unigram "
        "strategy's, then a drop toward the bigram strategy's. Checked per seed against the exact k = 2 strategy KLs "
        "(theory.markov): start within 10 % of the uniform KL, a plateau of at least 3 consecutive evaluations nearest "
        "the unigram strategy within 25 % of its KL, and an end nearest the bigram strategy at most 35 % of the way "
        "back to the unigram KL; p0 = 0.5 (the transformer typically goes through the phases).",
        kind="training",
        configs=TRANSFORMER,
        predict=_predict_strategies,
        observe=_observe_phases,
        judge=PHASES,
        deviations={"quick": TF_QUICK_DEVIATIONS, "full": ()},
        post_hoc=(POST_HOC_PHASES, POST_HOC_SEEDS),
        insensitive="the windows are relative (start within 10 % of the uniform KL, plateau within 25 % of the unigram "
        "KL, end at most 35 % of the way back): a 1 % error in the exact strategy KLs moves them by 1 %; a unigram KL "
        "off by a third, or a bigram KL at the final test KL, fails it (tests/verify/test_markov_claims.py)",
    )
)

register(
    Claim(
        id="edelman-ch8-transformer-phases-k3",
        source=f"{SRC}, Fig. 8.1 and Sec. 8.3 (k = 3)",
        statement="With k = 3 states the two-layer transformer goes through the same three phases.",
        kind="training",
        configs=TRANSFORMER_K3,
        predict=_predict_strategies,
        observe=_observe_phases,
        judge=PHASES,
        deviations={"full": ()},
        post_hoc=(POST_HOC_PHASES,),
    )
)


# --- Fig. 8.2 / Fig. E.5 and Prop. 8.2: the attention maps

#: Layer 1: share of the attention on earlier tokens that goes to the previous one. Layer 2: the attention mass on
#: the successors of earlier copies of the current token, as a fraction of the way from a uniform row to 1.
MIN_PREV_SHARE, MIN_INDUCTION_EXCESS = 0.8, 0.25


def _predict_targets(cfg: TransformerClaimConfig) -> dict[str, Any]:
    """Where the Prop. 8.2 construction attends on the probe's first sequence: layer 1 on j = i - 1 (1-based), the
    last layer's last row on the successors of earlier copies of the last token."""
    seq = vm.make_test_set(cfg.train.k, cfg.train.t, 1, order=cfg.train.order).inputs
    targets = nm.induction_targets(seq)[0, -1]
    return {"layer1": "previous token j = i - 1", "last_row_targets": (np.flatnonzero(targets) + 1).tolist()}


def _observe_attention(cfg: TransformerClaimConfig, ctx: RunContext) -> Observation:
    run = _transformer(cfg.train, ctx)
    end = run.final
    rows = []
    for i in range(len(run.seeds)):
        chance = end["induction_chance"][i]
        rows.append(
            {
                "seed": int(run.seeds[i]),
                "prev": end["prev"][i],
                "prev_excl_self": end["prev_excl_self"][i],
                "induction": end["induction"][i],
                "induction_chance": chance,
                "induction_excess": (end["induction"][i] - chance) / (1 - chance),
            }
        )
    return Observation(
        [r["induction"] for r in rows],
        details={"per_seed": rows},
        artifacts={"training": _history_artifact(run), "plots": _attention_plots(run)},
        seeds=run.seeds,
    )


register(
    Claim(
        id="edelman-ch8-transformer-induction-head",
        source=f"{SRC}, Fig. 8.2, Fig. E.5 and Prop. 8.2 (layer 2)",
        statement="At the end of training, the last layer attends to the tokens that followed earlier copies of the "
        "current token (the statistical induction head), well above what a uniform causal row puts there.",
        kind="training",
        configs=TRANSFORMER,
        predict=_predict_targets,
        observe=_observe_attention,
        judge=PerSeed(
            checks=(
                Check(
                    "induction_excess",
                    "layer-2 excess mass on successors of the current token",
                    lo=MIN_INDUCTION_EXCESS,
                ),
            ),
            headline="induction",
            rule=POPULATION,
        ),
        deviations={"quick": TF_QUICK_DEVIATIONS, "full": ()},
        post_hoc=(POST_HOC_INDUCTION, POST_HOC_SEEDS),
        insensitive="the prediction is the set of positions Prop. 8.2's construction attends to (successors of earlier "
        "copies of the current token), a structure with no number to move; the judge measures the mass on that set, "
        "recomputed from every test sequence",
    )
)

# Full scale only: with the quick setting, layer 1's mass is still spread over the odd lags 1 and 3 at the end of
# the run (the even/odd positional pattern the thesis sees just before the drop; docs/attention.md).
register(
    Claim(
        id="edelman-ch8-transformer-previous-token",
        source=f"{SRC}, Fig. 8.2, Fig. E.5 and Prop. 8.2 (layer 1)",
        statement="At the end of training, layer 1 attends to the previous token.",
        kind="training",
        configs={"full": TRANSFORMER["full"]},
        predict=_predict_targets,
        observe=_observe_attention,
        judge=PerSeed(
            checks=(
                Check(
                    "prev_excl_self",
                    "layer-1 share of earlier-token attention on the previous token",
                    lo=MIN_PREV_SHARE,
                ),
            ),
            headline="prev_excl_self",
            rule=POPULATION,
        ),
        deviations={"full": ()},
    )
)


# --- Fig. E.8: one-layer transformers do not beat the unigram strategy (a negative control)


@functools.lru_cache(maxsize=8)
def counts_floor(k: int, t: int, n: int, seed: int) -> dict[str, float]:
    """The KL of the Bayes predictor given the current token and the token counts (``numerics.markov``)."""
    mean, se = nm.mc_counts_bayes_kl(k, t, n, np.random.default_rng([seed, 99]))
    return {"kl": mean, "stderr": se}


@dataclass(frozen=True)
class OneLayerConfig(TransformerClaimConfig):
    """A one-layer ensemble; ``floor_chains`` training chains estimate the unigram-information floor."""

    floor_chains: int = 200_000


def _predict_one_layer(cfg: OneLayerConfig) -> dict[str, dict]:
    """The strategies' KLs and the floor ``counts_bayes``: no predictor that sees only the current token and the
    token counts does better (the information of the unigram strategy, plus the current token)."""
    tr = cfg.train
    return {**_predict_strategies(cfg), "counts_bayes": counts_floor(tr.k, tr.t, cfg.floor_chains, cfg.mc_seed)}


@dataclass(frozen=True)
class StaysAboveFloor(PerSeed):
    """A seed succeeds when (i) it learned: its lowest test KL over training is at most the unigram strategy's KL
    (plus ``z`` of the model's standard errors), so an untrained or diverged network (test KL at the uniform
    strategy's 0.21) fails the control; and (ii) that lowest test KL stays >= the ``counts_bayes`` floor less ``z``
    combined standard errors (of the floor's Monte Carlo and of the model's test KL on its fixed test chains). The
    verdict is the :class:`Population` rule on the successes.

    Why this floor and not the unigram strategy's KL: a one-layer model sees the current token as well as
    position-weighted token counts, and the quick runs get about 8 % below the add-one unigram strategy (0.083
    against 0.091 at k = 2, t = 50), near the stationary-oracle predictor (0.083). The Bayes predictor given the
    current token and the counts (0.075) is the best any function of that information can do; a model that formed an
    induction head would go far below it (the two-layer model reaches about 0.03). A one-layer model can in principle
    use a little more (recency-weighted counts, the previous token), so staying above the floor is the tested
    statement, not a theorem. The floor replaced an earlier "0.9 x the unigram strategy's KL" (0.0817): the quick runs
    sit at it (lowest KLs 0.0830-0.0841 on 1000 test chains, 0.0815-0.0827 on 4000: one seed below it)."""

    checks: tuple[Check, ...] = ()
    headline: str = "min_kl"
    rule: Population = POPULATION
    z: float = MC_Z

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        floor, unigram = predicted["counts_bayes"], predicted["unigram"]
        problems = []
        for r in per_seed:
            found = []
            limit = floor["kl"] - self.z * float(np.hypot(floor["stderr"], r["stderr_at_min"]))
            if r["min_kl"] < limit:
                found.append(f"lowest test KL {r['min_kl']:.4f} below the floor's limit {limit:.4f}")
            learned = unigram["kl"] + self.z * float(np.hypot(unigram["stderr"], r["stderr_at_min"]))
            if not r["min_kl"] <= learned:
                found.append(
                    f"did not learn: lowest test KL {r['min_kl']:.4f} above the unigram strategy's {learned:.4f}"
                )
            problems.append(found)
        return problems

    def describe(self) -> str:
        return (
            "per seed: min over training of the test KL <= the unigram strategy's KL + "
            f"{self.z:g} standard errors (the run learned) and >= KL of the Bayes predictor given the current token and "
            f"the token counts - {self.z:g} combined standard errors; {self.rule.describe()}"
        )


def _observe_one_layer(cfg: OneLayerConfig, ctx: RunContext) -> Observation:
    run = _transformer(cfg.train, ctx)
    unigram = _predict_strategies(cfg)["unigram"]["kl"]
    rows = []
    for i in range(len(run.seeds)):
        best = min(run.history, key=lambda h: h["kl"][i])
        rows.append(
            {
                "seed": int(run.seeds[i]),
                "min_kl": best["kl"][i],
                "stderr_at_min": best["kl_stderr"][i],
                "step_at_min": best["step"],
                "final_kl": run.final["kl"][i],
                "min_over_unigram_strategy": best["kl"][i] / unigram,
            }
        )
    return Observation(
        [r["min_kl"] for r in rows],
        details={"per_seed": rows, "steps": cfg.train.steps},
        artifacts={"training": _history_artifact(run), "plots": [_kl_plot("kl", run, _predict_one_layer(cfg))]},
        seeds=run.seeds,
    )


register(
    Claim(
        id="edelman-ch8-one-layer-control",
        source=f"{SRC}, Fig. E.8 (one-layer transformers)",
        statement="A one-layer attention-only transformer (relative positions), trained as the two-layer one, never "
        "gets below the unigram-information floor: the test KL of the Bayes predictor that sees only the current "
        "token and the token counts (a negative control for 'one layer never beats unigrams'; it does get a little "
        "below the add-one unigram strategy, which uses less of that information).",
        kind="training",
        configs={
            # 2000 test chains (not 1000): the model's test-KL standard error enters the floor's limit; 4000 would
            # tighten it further but costs ~25 s more of float64 evaluation on the 2-core CPU
            # 1000 steps: a control needs no drop; the lowest test KL is reached on the plateau
            "quick": OneLayerConfig(
                train=_tf(2, 50, 1, **{**TF_QUICK, "steps": 1000, "eval_every": 100, "eval_n": 2000})
            ),
            "full": OneLayerConfig(train=_tf(2, 100, 1, **{**TF_FULL, "steps": 8 * 40_000}), mc_chains=200_000),
        },
        predict=_predict_one_layer,
        observe=_observe_one_layer,
        judge=StaysAboveFloor(),
        deviations={"quick": TF_QUICK_DEVIATIONS, "full": ()},
        post_hoc=(POST_HOC_FLOOR,),
        insensitive="a negative control with a margin: the lowest test KLs (0.083) sit 11 % above the counts-Bayes "
        "floor (0.075) and 8 % below the unigram strategy's KL (0.091), so a 1 % error in either moves nothing; a "
        "floor 12 % higher, or a unigram KL 10 % lower, fails it",
    )
)


# --- Fig. 8.5: trigrams with three heads (full scale only)

register(
    Claim(
        id="edelman-ch8-transformer-trigram",
        source=f"{SRC}, Fig. 8.5 and Sec. 8.3.3 (trigram chains, 3 heads, t = 200)",
        statement="On trigram chains a two-layer transformer with 3 heads per layer goes through the phases and ends "
        "nearest the trigram strategy.",
        kind="training",
        configs={
            "full": TransformerClaimConfig(
                train=_tf(2, 200, 2, heads=3, optimizer="adam", order=3, **{**TF_FULL, "lr": 3e-4}), mc_chains=100_000
            )
        },
        predict=_predict_strategies,
        observe=_observe_phases,
        judge=ThreePhases(last="trigram", before_last="bigram"),
        deviations={
            "full": (
                Deviation(
                    "optimizer and learning rate (trigram transformer)",
                    "'3e-2 for 3-grams' (Edelman thesis, App. E.2, in the sentence on the minimal model; ambiguous)",
                    "Adam, lr 3e-4",
                    "a transformer at lr 3e-2 diverges; 3e-4 is our reading (docs/attention.md)",
                ),
                Deviation(
                    "head width",
                    "d = 16 split over 3 heads (Edelman thesis, Sec. 8.3.3 and Fig. 8.5)",
                    "3 heads, each 16 wide",
                    "3 does not divide 16; each head gets the full width instead",
                ),
            )
        },
        post_hoc=(POST_HOC_PHASES,),
    )
)


# --- Fig. 8.4a: the prior changes the speed (k = 4, full scale only)


def _predict_priors(cfg: PriorsConfig) -> dict[str, dict]:
    tr = cfg.doubly_stochastic
    return strategy_kls(tr.k, tr.t, 2, cfg.mc_chains, cfg.mc_seed)


def _observe_priors(cfg: PriorsConfig, ctx: RunContext) -> Observation:
    """Per seed i, the doubly stochastic samples each run (seed i of the doubly stochastic ensemble, seed i of the
    mixture ensemble) needed to reach the target KL; the pair succeeds when the doubly stochastic run reached it in
    fewer (a mixture run that never reaches it counts as slower)."""
    pred = _predict_priors(cfg)
    target = pred["bigram"]["kl"] + cfg.target_frac * (pred["unigram"]["kl"] - pred["bigram"]["kl"])
    runs: dict[str, list[float | None]] = {}
    seeds: tuple[int, ...] = ()
    for name, tr, share in (("doubly_stochastic", cfg.doubly_stochastic, 1.0), ("mixture", cfg.mixture, 0.5)):
        run = _transformer(tr, ctx)
        seeds = run.seeds
        runs[name] = []
        for i in range(len(run.seeds)):
            hit = next((h["step"] for h in run.history if h["kl"][i] <= target), None)
            runs[name].append(None if hit is None else hit * tr.batch * share)  # doubly stochastic chains (expected)
    rows = []
    for i, seed in enumerate(seeds):
        ds, mix = runs["doubly_stochastic"][i], runs["mixture"][i]
        rows.append(
            {
                "seed": int(seed),
                "ds_samples_doubly_stochastic": ds,
                "ds_samples_mixture": mix,
                "faster": ds is not None and (mix is None or ds < mix),
            }
        )
    return Observation([r["faster"] for r in rows], details={"per_seed": rows, "target_kl": target}, seeds=seeds)


register(
    Claim(
        id="edelman-ch8-priors-speed",
        source=f"{SRC}, Fig. 8.4a and Fig. E.6 (k = 4, doubly stochastic vs mixed-in iid-token chains)",
        statement="Removing the unigram signal speeds training up: trained on doubly stochastic chains, the transformer "
        "reaches a KL between the bigram and unigram strategies' in fewer doubly stochastic samples than trained on a "
        "50/50 mixture with iid-token chains. Judged per seed i (run i on each prior; p0 = 0.5, the faster run is "
        "the typical one).",
        kind="training",
        configs={
            "full": PriorsConfig(
                doubly_stochastic=_tf(4, 100, 2, prior="doubly_stochastic", **TF_FULL),
                mixture=_tf(4, 100, 2, prior="mixture", **TF_FULL),
            )
        },
        predict=_predict_priors,
        observe=_observe_priors,
        judge=PerSeed(
            checks=(
                Check(
                    "faster",
                    "doubly stochastic run reaches the target KL in fewer doubly stochastic samples",
                    truthy=True,
                ),
            ),
            headline="ds_samples_doubly_stochastic",
            rule=POPULATION,
        ),
        deviations={"full": ()},
        insensitive="the verdict compares two training runs with each other; the predicted strategy KLs only place "
        "the target",
    )
)
