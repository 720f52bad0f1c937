"""Edelman thesis (2024) Ch. 5, Sec. 5.5 ("Emergence of grokking in the finite-sample (multi-pass) setting"), Fig. 5.4
right and App. B.3.5, Fig. B.11: with a finite training sample of size m and weight decay, minibatch SGD on a
width-100 ReLU MLP (hinge, B = 32, eta = 0.1) learns the sparse parity, and for small m "the model initially overfits
the training data, but finds a classifier that generalizes after a large number of iterations": "a large gap between
the time to zero train error vs. zero test error" (docs/sparse_parity.md).

``edelman-ch5-figB.11-finite-sample-grokking``: per seed (its own m training points, its own initialisation and epoch
order), the first evaluated step t_train at which the training error is 0 and the first t_test at which the error on
held-out points is at most ``1 - test_level``; a seed succeeds when both happen within the budget and
t_test >= ``factor`` x t_train (a generalisation delayed well past memorisation). The trainer records the training
accuracy with ``SparseParityConfig.train_accuracy``.

The caption's other statements (issue 30 item 8), on the same model and trainer (:class:`RegimeConfig`), each a seed
population judged by :class:`RegimeOutcomes` (per seed, every (m, lambda) panel of the configuration shows the outcome
the caption states for it within the budget):

* ``edelman-ch5-figB.11-large-m-generalises``: "When m is sufficiently large (much larger than the statistical
  threshold Theta(k log n)), generalization error is negligible": the held-out accuracy reaches the level;
* ``edelman-ch5-figB.11-small-m-fails``: "When m is too small, the model fails to train": it never does;
* ``edelman-ch5-figB.11-lambda-widens-generalisation``: weight decay "improves generalization (expanding the range of
  m for which training eventually finds the correct solution)": at one m, per seed, the larger lambda generalises
  and the smaller does not (the same initialisation, sample and epoch order);
* ``edelman-ch5-figB.11-largest-lambda-fails-to-train``: "the model fails to train at large values of lambda": the
  training error never reaches 0.

The thesis gives m and lambda only in the figure; the values were chosen after pilots on other seeds (post hoc, in
the records).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from theory.boolean import random_search_tc_probability
from verify.sweep import Cell, CellResult, Grid
from verify.train.sparse_parity import SparseParityConfig, divergence_reason

from ..base import Claim, Deviation, Observation, PostHoc, RunContext, register
from ..judges import Population
from .common import (
    SRC_CH5,
    chunked_cells,
    diverged_at,
    parity_cost,
    run_parity,
    tc_list,
    xavier_relu_mlp,
)
from .summarised import SummarisedPopulation

__all__ = [
    "GROK_RULE",
    "OUTCOMES",
    "REGIME_RULE",
    "FigB11Model",
    "GrokConfig",
    "Grokking",
    "RegimeConfig",
    "RegimeOutcomes",
    "RegimeSetting",
    "run_grokking",
]


@dataclass(frozen=True, kw_only=True)
class FigB11Model:
    """The model and trainer of Fig. B.11's claims: a width-100 ReLU MLP (Xavier init, hinge) trained by minibatch SGD
    (B = 32, eta = 0.1) with weight decay (PyTorch convention, theta <- theta - eta (grad + lambda theta)) on m
    training points per seed, evaluated every ``eval_every`` steps on its training sample and on ``n_val`` held-out
    points; held-out success is accuracy >= ``test_level``. Keyword-only, so the fields follow each configuration's
    own arguments in its constructor."""

    test_level: float = 0.99
    width: int = 100
    lr: float = 0.1
    batch_size: int = 32
    steps: int = 15_000
    eval_every: int = 50
    n_val: int = 2000
    num_threads: int | None = None

    def sample_mlp(self, n: int, k: int, m: int, weight_decay: float, seeds: tuple[int, ...]) -> SparseParityConfig:
        """The (n, k)-parity ensemble of ``seeds`` at sample size m and weight decay lambda, training accuracy recorded
        and each seed frozen once its held-out error is at most ``1 - test_level``."""
        return xavier_relu_mlp(
            self,
            n,
            k,
            self.width,
            seeds,
            self.eval_every,
            weight_decay=weight_decay,
            decay="pytorch",
            mode="offline",
            n_train=m,
            target_error=round(1 - self.test_level, 12),
            train_accuracy=True,
        )


@dataclass(frozen=True)
class GrokConfig(FigB11Model):
    """:class:`FigB11Model` at one sample size m and weight decay; a seed groks when t_test >= ``factor`` x
    t_train."""

    n: int
    k: int
    m: int
    weight_decay: float
    seeds: tuple[int, ...]
    factor: float = 3.0

    def parity(self) -> SparseParityConfig:
        return self.sample_mlp(self.n, self.k, self.m, self.weight_decay, self.seeds)


def run_grokking(cell: Cell, ctx: RunContext) -> dict[str, Any]:
    """Train a cell with the training accuracy recorded; keep per seed t_train (first evaluated step with training
    accuracy 1; inf: never), t_c (the test level; inf: never), the best test and the final training accuracy, the
    divergence, and the two accuracy curves (for the plot)."""
    res = run_parity(cell.config, ctx)
    train = res.train_accuracy
    assert train is not None
    reached = train >= 1.0
    t_train = np.where(reached.any(axis=0), res.steps[np.argmax(reached, axis=0)].astype(np.float64), np.inf)
    return {
        "seeds": list(res.config.seeds),
        "t_c": res.t_c,
        "t_train": t_train,
        "diverged": res.diverged,
        "diverged_at": res.diverged_at,
        "best_accuracy": res.accuracy.max(axis=0),
        "final_train_accuracy": train[-1],
        "steps": res.steps,
        "accuracy": res.accuracy,
        "train_accuracy": train,
        "steps_run": int(res.steps_run),
    }


#: "We reliably observe the grokking phenomenon" describes the typical run (p0 = 1/2); power against 0.95.
GROK_RULE = Population(p0=0.5, p_alt=0.95)


@dataclass(frozen=True)
class Grokking(SummarisedPopulation):
    """Fig. 5.4 right / B.11 as a seed population: a seed succeeds when its training error reaches 0 (t_train) and
    its held-out error reaches ``1 - test_level`` (t_test) within the budget, with t_test >= ``factor`` x t_train;
    ``inconclusive`` when every seed diverged."""

    rule: Population = GROK_RULE
    criterion: ClassVar[str] = (
        "per seed: training error 0 at t_train and held-out accuracy >= test_level at t_test, both within the budget, "
        "with t_test >= factor x t_train (factor and level in the config)"
    )

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        out = []
        for row in obs.details["per_seed"]:
            tr, te = row["t_train"], row["t_test"]
            if tr is None:
                problems = [
                    f"training error never 0 within {config.steps} steps (final train acc {row['final_train_accuracy']:.3f})"
                ]
            elif te is None:
                problems = [
                    f"held-out accuracy never >= {config.test_level:g} within {config.steps} steps "
                    f"(best {row['best_accuracy']:.3f})"
                ]
            elif not te >= config.factor * tr:
                problems = [f"t_test {te:g} < {config.factor:g} x t_train {tr:g}"]
            else:
                problems = []
            out.append({"label": f"seed {row['seed']}", "problems": problems})
        return out

    def summary(self, predicted: Any, obs: Observation, config: Any) -> str:
        ratios = [r["ratio"] for r in obs.details["per_seed"] if r["ratio"] is not None]
        return (
            f"m = {config.m} ({config.m / float(predicted['log2_C(n,k)']):.3g} x the statistical threshold log2 C(n,k) "
            f"= {float(predicted['log2_C(n,k)']):.3g}, {config.m / float(predicted['C(n,k)']):.2g} x C(n,k)), "
            f"weight decay {config.weight_decay:g}: t_test / t_train "
            + (
                f"{min(ratios):.3g}-{max(ratios):.3g} over {len(ratios)} seeds"
                if ratios
                else "undefined (no seed reached both)"
            )
        )


def _predict(cfg: GrokConfig) -> dict[str, Any]:
    """Context from theory: C(n,k) (the size of the hypothesis class, theory.boolean) and the statistical threshold
    log2 C(n,k) ~ k log n of the caption; chance accuracy 1/2."""
    C = random_search_tc_probability(cfg.n, cfg.k, 0.5)["C"]
    return {"chance": 0.5, "C(n,k)": int(C), "log2_C(n,k)": math.log2(int(C))}


def _cells(cfg: GrokConfig) -> list[Cell]:
    return chunked_cells([(f"({cfg.n},{cfg.k}) m={cfg.m} wd={cfg.weight_decay:g}", cfg.parity())])


#: The two curves a run records per seed: (name in the plot's legend, key of :func:`run_grokking`'s value).
_CURVES = (("train", "train_accuracy"), ("test", "accuracy"))


def _accuracy_plot(series: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """The ``train-vs-test`` plot (training and held-out accuracy against the SGD step) of ``series``."""
    return {
        "name": "train-vs-test",
        "kind": "lines",
        "series": series,
        "xlabel": "SGD step",
        "ylabel": "accuracy",
        "title": title,
    }


def _aggregate(cfg: GrokConfig, results: list[CellResult]) -> Observation:
    rows = []
    for r in results:
        v = r.value
        for e, seed in enumerate(v["seeds"]):
            tr, te = float(v["t_train"][e]), float(v["t_c"][e])
            rows.append(
                {
                    "seed": int(seed),
                    "t_train": tr if math.isfinite(tr) else None,
                    "t_test": te if math.isfinite(te) else None,
                    "ratio": te / tr if math.isfinite(tr) and math.isfinite(te) and tr > 0 else None,
                    "best_accuracy": float(v["best_accuracy"][e]),
                    "final_train_accuracy": float(v["final_train_accuracy"][e]),
                }
            )
    diverged = np.concatenate([np.asarray(r.value["diverged_at"], dtype=np.float64) for r in results])
    first = results[0].value
    steps = np.asarray(first["steps"]).tolist()
    series = [
        {"label": f"seed {first['seeds'][e]} {name}", "x": steps, "y": np.asarray(first[key])[:, e].tolist()}
        for e in range(min(4, len(first["seeds"])))
        for name, key in _CURVES
    ]
    plot = _accuracy_plot(
        series, f"({cfg.n},{cfg.k}) parity, m = {cfg.m}, weight decay {cfg.weight_decay:g}, width {cfg.width}"
    )
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    return Observation(
        float(np.median(ratios)) if ratios else float("nan"),
        details={
            "per_seed": rows,
            "t_train": tc_list(np.array([r["t_train"] if r["t_train"] is not None else np.inf for r in rows])),
            "median_ratio": float(np.median(ratios)) if ratios else None,
            "divergence": divergence_reason(diverged, cfg.eval_every),
            "seeds": [r["seed"] for r in rows],
        },
        artifacts={"plots": [plot]},
        seeds=cfg.seeds,
    )


GRID = Grid(
    claim_id="edelman-ch5-figB.11-finite-sample-grokking",
    cells=_cells,
    run=run_grokking,
    aggregate=_aggregate,
    cost=parity_cost,
)

QUICK_SIZE = Deviation(
    parameter="instance, sample size, weight decay and test set",
    source="not stated in the text (Fig. 5.4 right / B.11 vary m and lambda; width 100, B = 32, eta = 0.1 stated); "
    "test error measured as in App. B.4.2",
    value="(20, 3), m = 250, lambda = 0.01 (Ch. 6's value, App. C.3.1), 16 seeds, 1.5e4-step budget, 2000 held-out "
    "points, zero test error read as accuracy >= 0.99",
    why="CPU budget: 8 seeds at m = 250 take about 7 s on the loaded machine",
)

FULL_SIZE = Deviation(
    parameter="instance, sample size and weight decay",
    source="not stated in the text (width 100, B = 32, eta = 0.1 stated)",
    value="(20, 3), m = 250, lambda = 0.01, 64 seeds, 1e5-step budget, 1e4 held-out points (Ch. 6's test size)",
    why="the quick instance at the thesis's budget and test size; the figure's own instance is not given in the text",
)

POST_HOC = (
    PostHoc(
        parameter="instance (20, 3), m = 250, lambda = 0.01, factor 3, budget 1.5e4",
        value="m = 250, t_test >= 3 x t_train",
        when="after 8-seed pilots on seeds 0-7 at (20, 3), lambda = 0.01: m = 400: t_train 800-1300, t_test "
        "1450-2400 (ratios 1.5-2.0, no delayed generalisation); m = 300: ratios 2.0-7.8; m = 250: t_train 450-800, "
        "t_test 3650-6500 (ratios 5.9-13.7); m = 200: 3 of 8 reached 0.99 within 1e4 steps (ratios 14-26)",
        why="the caption's grokking regime lies between too little data (no convergence) and enough data (no gap); "
        "m = 250 is inside it at an affordable budget, and a factor of 3 separates it from the m = 400 runs; the "
        "judged seeds are 8-23, disjoint from the pilot's",
    ),
)

register(
    Claim(
        id=GRID.claim_id,
        source=f"{SRC_CH5}, Sec. 5.5, Fig. 5.4 right, App. B.3.5, Fig. B.11; docs/sparse_parity.md",
        statement="With a finite training sample and weight decay (width-100 ReLU MLP, hinge, B = 32, eta = 0.1), "
        "SGD groks the sparse parity: per seed, the training error reaches 0 well before the held-out error "
        "does (t_test >= 3 x t_train, held-out accuracy >= 0.99 within the budget). Target rate 1/2 ('reliably').",
        kind="training",
        configs={
            "quick": GrokConfig(n=20, k=3, m=250, weight_decay=0.01, seeds=tuple(range(8, 24)), num_threads=1),
            "full": GrokConfig(
                n=20, k=3, m=250, weight_decay=0.01, seeds=tuple(range(8, 72)), steps=100_000, n_val=10_000
            ),
        },
        predict=_predict,
        observe=GRID.observe,
        judge=Grokking(),
        deviations={"quick": (QUICK_SIZE,), "full": (FULL_SIZE,)},
        post_hoc=POST_HOC,
        insensitive=(
            "the prediction is context (chance 1/2, C(n,k) and the statistical threshold log2 C(n,k) that m is "
            "compared with in the reason); the statement is qualitative (memorisation before generalisation), "
            "judged per seed by the declared factor, which the prediction does not set"
        ),
    )
)


# --- The other statements of Fig. B.11's caption and App. B.3.5 (issue 30 item 8) ---------------------------------

#: The outcomes the caption states for a (m, lambda) panel, as judged per seed within the budget: ``generalises``
#: (held-out accuracy reaches ``test_level``), ``no generalisation`` (it never does) and ``no fit`` (the training
#: error never reaches 0).
OUTCOMES = ("generalises", "no generalisation", "no fit")


@dataclass(frozen=True)
class RegimeSetting:
    """One panel of Fig. B.11: sample size m, weight decay lambda and the outcome the caption states for it (one of
    :data:`OUTCOMES`)."""

    m: int
    weight_decay: float
    expect: str

    def __post_init__(self) -> None:
        if self.expect not in OUTCOMES:
            raise ValueError(f"expect must be one of {OUTCOMES}, got {self.expect!r}")
        if self.m < 1 or self.weight_decay < 0:
            raise ValueError(f"need m >= 1 and weight_decay >= 0, got m = {self.m}, weight_decay = {self.weight_decay}")

    @property
    def label(self) -> str:
        return f"m={self.m} wd={self.weight_decay:g}"


@dataclass(frozen=True)
class RegimeConfig(FigB11Model):
    """Fig. B.11's panels as seed populations: the grokking claim's model and trainer (:class:`FigB11Model`: width-100
    ReLU MLP, Xavier init, hinge, SGD with PyTorch weight decay on m training points per seed, B = 32, eta = 0.1) at
    each (m, lambda) of ``settings``, every setting on the same seeds (a seed's initialisation, sample and epoch order
    are those of its seed, whatever lambda). A ``no fit`` setting trains every seed for the whole budget (a seed is
    not frozen when its held-out accuracy reaches the level, so its training error is seen to the end)."""

    n: int
    k: int
    settings: tuple[RegimeSetting, ...]
    seeds: tuple[int, ...]
    steps: int = field(default=4000, kw_only=True)

    def __post_init__(self) -> None:
        keys = [(s.m, s.weight_decay) for s in self.settings]
        if not keys or len(set(keys)) != len(keys):
            raise ValueError(f"settings must be non-empty with distinct (m, weight_decay), got {keys}")

    def parity(self, setting: RegimeSetting) -> SparseParityConfig:
        cfg = self.sample_mlp(self.n, self.k, setting.m, setting.weight_decay, self.seeds)
        return cfg.replace(stop_when_converged=False) if setting.expect == "no fit" else cfg


def _regime_cells(cfg: RegimeConfig) -> list[Cell]:
    return chunked_cells((s.label, cfg.parity(s)) for s in cfg.settings)


def _regime_aggregate(cfg: RegimeConfig, results: list[CellResult]) -> Observation:
    """Per setting, per seed: t_train (first evaluation with training error 0), t_test (first with held-out accuracy
    >= test_level), the best held-out and the best and final training accuracy; and a plot of one seed's curves per
    setting."""
    rows, plot_series, blown = [], [], []
    for s in cfg.settings:
        mine = [r for r in results if (r.cell.config.n_train, r.cell.config.weight_decay) == (s.m, s.weight_decay)]
        t_train = np.concatenate([np.asarray(r.value["t_train"], dtype=np.float64) for r in mine])
        t_test = np.concatenate([np.asarray(r.value["t_c"], dtype=np.float64) for r in mine])
        best_train = np.concatenate([np.asarray(r.value["train_accuracy"]).max(axis=0) for r in mine])
        rows.append(
            {
                "m": s.m,
                "weight_decay": s.weight_decay,
                "expect": s.expect,
                "seeds": [int(x) for r in mine for x in r.value["seeds"]],
                "t_train": tc_list(t_train),
                "t_test": tc_list(t_test),
                "best_accuracy": np.concatenate([r.value["best_accuracy"] for r in mine]).tolist(),
                "best_train_accuracy": best_train.tolist(),
                "final_train_accuracy": np.concatenate([r.value["final_train_accuracy"] for r in mine]).tolist(),
                "diverged_at": tc_list(diverged_at(mine)),
            }
        )
        reason = divergence_reason(diverged_at(mine), cfg.eval_every)
        if reason:
            blown.append(f"{s.label}: {reason}")
        first = mine[0].value
        steps = np.asarray(first["steps"]).tolist()
        for name, key in _CURVES:
            plot_series.append(
                {
                    "label": f"{s.label} seed {first['seeds'][0]} {name}",
                    "x": steps,
                    "y": np.asarray(first[key])[:, 0].tolist(),
                }
            )
    plot = _accuracy_plot(plot_series, f"({cfg.n},{cfg.k}) parity, width {cfg.width}: one seed per (m, weight decay)")
    return Observation(
        {f"m={r['m']} wd={r['weight_decay']:g}": _meets_rate(r, cfg) for r in rows},
        details={"settings": rows, "seeds": rows[0]["seeds"], "divergence": "; ".join(blown) or None},
        artifacts={"plots": [plot]},
        seeds=cfg.seeds,
    )


def _outcome_problem(row: dict[str, Any], e: int, cfg: RegimeConfig) -> str | None:
    """Why seed ``e`` of a setting's ``row`` does not show the setting's expected outcome (None: it does)."""
    where = f"m={row['m']} wd={row['weight_decay']:g}"
    blown = (row.get("diverged_at") or [None] * (e + 1))[e]  # rows stored before the field existed: never
    if blown is not None:  # a run that blew up shows no outcome: never evidence for 'no fit' or 'no generalisation'
        return f"{where}: parameters non-finite at step {blown:g} (diverged)"
    t_train, t_test = row["t_train"][e], row["t_test"][e]
    if row["expect"] == "generalises" and t_test is None:
        return (
            f"{where}: held-out accuracy never >= {cfg.test_level:g} within {cfg.steps} steps "
            f"(best {row['best_accuracy'][e]:.3f})"
        )
    if row["expect"] == "no generalisation" and t_test is not None:
        return f"{where}: held-out accuracy >= {cfg.test_level:g} at step {t_test:g}"
    if row["expect"] == "no fit" and t_train is not None:
        return f"{where}: training error 0 at step {t_train:g}"
    return None


def _meets_rate(row: dict[str, Any], cfg: RegimeConfig) -> float:
    """The fraction of a setting's seeds that show its expected outcome."""
    n = len(row["seeds"])
    return sum(_outcome_problem(row, e, cfg) is None for e in range(n)) / n


def _span(values: list[float | None], fmt: str = ".3g") -> str:
    """``lo-hi`` of the finite entries (``-`` when there are none)."""
    xs = [float(v) for v in values if v is not None]
    return f"{min(xs):{fmt}}-{max(xs):{fmt}}" if xs else "-"


#: The caption describes one run per panel, read as the typical run (p0 = 1/2); power against 0.95.
REGIME_RULE = Population(p0=0.5, p_alt=0.95)


@dataclass(frozen=True)
class RegimeOutcomes(SummarisedPopulation):
    """Fig. B.11's panels as a seed population: a seed succeeds when, at every (m, lambda) of the configuration, it
    shows the outcome the caption states for that panel within the budget: ``generalises`` (held-out accuracy >=
    test_level), ``no generalisation`` (held-out accuracy < test_level at every evaluation) or ``no fit`` (training
    accuracy < 1 at every evaluation); a seed whose parameters diverged at a setting fails there (a blown-up run
    fits nothing, which must not count as the predicted 'no fit'); ``inconclusive`` when every seed of a setting
    diverged."""

    rule: Population = REGIME_RULE
    criterion: ClassVar[str] = (
        "per seed, at every (m, weight decay) of the config, within the budget: 'generalises' = held-out accuracy >= "
        "test_level at some evaluation; 'no generalisation' = below it at every evaluation; 'no fit' = training "
        "accuracy < 1 at every evaluation (level and budget in the config)"
    )

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        rows = obs.details["settings"]
        out = []
        for e, seed in enumerate(obs.details["seeds"]):
            problems = [p for row in rows if (p := _outcome_problem(row, e, config)) is not None]
            out.append({"label": f"seed {seed}", "problems": problems})
        return out

    def summary(self, predicted: Any, obs: Observation, config: Any) -> str:
        threshold = float(predicted["log2_C(n,k)"])
        parts = []
        for row in obs.details["settings"]:
            n = len(row["seeds"])
            parts.append(
                f"m = {row['m']} ({row['m'] / threshold:.3g} x log2 C(n,k)), weight decay {row['weight_decay']:g}, "
                f"expected {row['expect']}: {sum(t is not None for t in row['t_test'])}/{n} reach held-out accuracy "
                f"{config.test_level:g} (steps {_span(row['t_test'])}), {sum(t is not None for t in row['t_train'])}/{n} "
                f"reach training error 0 (steps {_span(row['t_train'])}), best held-out accuracy "
                f"{_span(row['best_accuracy'])}, best training accuracy {_span(row['best_train_accuracy'])}"
            )
        return "; ".join(parts)


def _regime_predict(cfg: RegimeConfig) -> dict[str, Any]:
    """The grokking claim's context (:func:`_predict`: chance 1/2, C(n,k), log2 C(n,k)) for the instance."""
    return _predict(GrokConfig(n=cfg.n, k=cfg.k, m=cfg.settings[0].m, weight_decay=0.0, seeds=cfg.seeds))


def _regime_grid(claim_id: str) -> Grid:
    return Grid(claim_id=claim_id, cells=_regime_cells, run=run_grokking, aggregate=_regime_aggregate, cost=parity_cost)


#: The seeds of the four claims below: disjoint from the pilots' seeds 100-107 (and the same as the grokking claim's
#: first eight).
REGIME_SEEDS_QUICK = tuple(range(8, 16))
REGIME_SEEDS_FULL = tuple(range(8, 72))

REGIME_QUICK_SIZE = Deviation(
    parameter="instance, sample sizes, weight decays, budget and test set",
    source="not stated in the text (Fig. B.11 varies m and lambda, values only in the figure; width 100, B = 32, "
    "eta = 0.1 stated); test error measured as in App. B.4.2",
    value="(20, 3) as the grokking claim, 8 seeds, a 4000-step budget, 2000 held-out points, zero test error read as "
    "accuracy >= 0.99 (m and lambda in the configuration)",
    why="CPU budget: a seed that does not generalise runs the whole budget; 8 seeds x 4000 steps take about 10 s on "
    "the loaded machine",
)

#: Where Fig. B.11's full-scale settings come from: the figure states width, batch and step size; its budget is
#: the 1e5 iterations that Sec. 5.3.1 (Edelman thesis) and App. B.4.2 state for the online runs.
_FULL_SIZE_SOURCE = (
    "not stated in the text (width 100, B = 32, eta = 0.1 stated; the 1e5-iteration budget is the one Sec. 5.3.1 "
    "and App. B.4.2 state for the online runs)"
)

REGIME_FULL_SIZE = Deviation(
    parameter="instance, sample sizes and weight decays",
    source=_FULL_SIZE_SOURCE,
    value="the quick (m, lambda), 64 seeds, 1e5-step budget, 1e4 held-out points (Ch. 6's test size)",
    why="the quick panels at the thesis's budget and test size; the figure's own m and lambda are not given in the text",
)

REGIME_PILOTS = (
    "8-seed pilots on seeds 100-107 at (20, 3), 4000-step budget (held-out accuracy >= 0.99 = generalises), after "
    "the grokking claim's pilots on seeds 0-7 (lambda = 0.01: m = 400 t_test 1450-2400; m = 250 3650-6500; m = 200 3 "
    "of 8 within 1e4 steps): lambda = 0.01: m = 1000 8/8 generalise by step 1100; m = 150 and m = 100 0/8 (best "
    "held-out 0.51-0.60, training error 0 by step 300); lambda = 0.03: m = 200 0/8 (best 0.54-0.97), m = 150 0/8; "
    "lambda = 0.001 and lambda = 0 at m = 400: 0/8 (best 0.58-0.75; training error 0 by step 950); lambda = 0 at "
    "m = 1000: 5/8 (best 0.96-0.997); lambda = 0.1: "
    "training error never 0 at m = 150, 200, 250 and 1000 (best training accuracy 0.66-0.95); lambda = 0.3 at "
    "m = 1000: the network collapses (final training accuracy 0-0.4)"
)

REGIME_INSENSITIVE = (
    "the prediction is context (chance 1/2, C(n,k) and the statistical threshold log2 C(n,k) that each m is compared "
    "with in the reason); the statement is qualitative (which panels generalise or train), judged per seed by the "
    "declared level and budget, which the prediction does not set"
)


def _register_regime(
    claim_id: str,
    statement: str,
    settings: tuple[RegimeSetting, ...],
    post_hoc: tuple[PostHoc, ...],
    full_steps: int = 100_000,
    full_deviation: Deviation = REGIME_FULL_SIZE,
) -> None:
    """Register one claim of Fig. B.11's panels: ``settings`` judged by :class:`RegimeOutcomes` on seeds 8-15
    (quick, 4000 steps) and 8-71 (full: ``full_steps``, 1e4 held-out points), with the shared quick deviation, the
    full one and the post-hoc choices."""
    grid = _regime_grid(claim_id)
    register(
        Claim(
            id=claim_id,
            source=f"{SRC_CH5}, App. B.3.5, Fig. B.11 and its caption; docs/sparse_parity.md",
            statement=statement,
            kind="training",
            configs={
                "quick": RegimeConfig(n=20, k=3, settings=settings, seeds=REGIME_SEEDS_QUICK, num_threads=1),
                "full": RegimeConfig(
                    n=20, k=3, settings=settings, seeds=REGIME_SEEDS_FULL, steps=full_steps, n_val=10_000
                ),
            },
            predict=_regime_predict,
            observe=grid.observe,
            judge=RegimeOutcomes(),
            deviations={"quick": (REGIME_QUICK_SIZE,), "full": (full_deviation,)},
            post_hoc=post_hoc,
            insensitive=REGIME_INSENSITIVE,
        )
    )


REGIME_LONG_PILOTS = (
    "2-seed pilots on seeds 100-101 at (20, 3) with a 3e4-step budget, after the 4000-step pilots: lambda = 0.01 at "
    "m = 100: held-out accuracy never >= 0.99 (best 0.51-0.52); lambda = 0.001 at m = 400: held-out accuracy 0.99 at "
    "steps 15450 and 16500 (training error 0 by step 850: grokking about 10 times later than at lambda = 0.01); lambda = 0.1 at m = 250: "
    "training error never 0 (best training accuracy 0.77-0.92)"
)

_register_regime(
    "edelman-ch5-figB.11-large-m-generalises",
    "Fig. B.11 caption: 'When m is sufficiently large (much larger than the statistical threshold Theta(k log n)), "
    "generalization error is negligible': with m = 1000 training points (98 x log2 C(20,3)) and weight decay 0.01 "
    "(width-100 ReLU MLP, hinge, B = 32, eta = 0.1), per seed the held-out accuracy reaches 0.99 within the budget. "
    "Target rate 1/2 (the typical run).",
    (RegimeSetting(1000, 0.01, "generalises"),),
    (
        PostHoc(
            parameter="m = 1000 at lambda = 0.01, budget 4000 steps, level 0.99",
            value="m = 1000",
            when=REGIME_PILOTS,
            why="the largest m of the pilots, where every pilot seed generalised by step 1100; the judged seeds 8-15 "
            "are disjoint from the pilots'",
        ),
    ),
)

_register_regime(
    "edelman-ch5-figB.11-small-m-fails",
    "Fig. B.11 caption: 'When m is too small, the model fails to train' (App. B.3.5: the range of m 'for which "
    "training eventually finds the correct solution' is bounded below): with m = 100 training points (9.8 x log2 "
    "C(20,3)) and weight decay 0.01, per seed the held-out accuracy stays below 0.99 throughout the budget (the "
    "training error reaching 0 or not). Target rate 1/2 (the typical run).",
    (RegimeSetting(100, 0.01, "no generalisation"),),
    (
        PostHoc(
            parameter="m = 100 at lambda = 0.01, budget 4000 steps, level 0.99",
            value="m = 100",
            when=f"{REGIME_PILOTS}; {REGIME_LONG_PILOTS}",
            why="an m below the grokking claim's m = 250 (and below m = 200, where 3 of 8 pilot seeds generalised "
            "within 1e4 steps) at which no pilot seed generalised, within 4000 steps nor within 3e4; the judged "
            "seeds 8-15 are disjoint from the pilots'",
        ),
    ),
)

#: The comparison's horizon at full scale: the quick budget, not 1e5 steps (the post-hoc entry says why).
LAMBDA_FULL_SIZE = Deviation(
    parameter="instance, sample size, weight decays and budget",
    source=_FULL_SIZE_SOURCE,
    value="the quick (m, lambda) and the quick 4000-step budget, 64 seeds, 1e4 held-out points",
    why="the statement compares the ranges of m that generalise within one horizon; at m = 400 the smaller lambda "
    "generalises too after about 1.6e4 steps (pilot), so a 1e5-step budget would need a smaller m that the pilots "
    "have not located",
)

_register_regime(
    "edelman-ch5-figB.11-lambda-widens-generalisation",
    "App. B.3.5: weight decay 'improves generalization (expanding the range of m for which training eventually "
    "finds the correct solution)'; caption: 'larger lambda improves generalization': at m = 400 (39 x log2 C(20,3)), "
    "per seed (the same initialisation, sample and epoch order for both), within a 4000-step budget the held-out "
    "accuracy reaches 0.99 with weight decay 0.01 and stays below 0.99 with weight decay 0.001. Target rate 1/2.",
    (RegimeSetting(400, 0.001, "no generalisation"), RegimeSetting(400, 0.01, "generalises")),
    (
        PostHoc(
            parameter="m = 400, lambda = 0.001 against lambda = 0.01, budget 4000 steps (quick and full), level 0.99",
            value="m = 400, lambdas 0.001 and 0.01, 4000 steps",
            when=f"{REGIME_PILOTS}; {REGIME_LONG_PILOTS}",
            why="the grokking claim's pilot showed lambda = 0.01 generalising at m = 400 within 2400 steps, and at "
            "lambda = 0.001 no pilot seed generalised there within 4000 steps; the 3e4-step pilot showed lambda = "
            "0.001 generalising at m = 400 after about 1.6e4 steps, so the full configuration keeps the 4000-step "
            "horizon (the claim is about a fixed horizon, not about 'eventually'); the judged seeds 8-15 (8-71) are "
            "disjoint from the pilots'",
        ),
    ),
    full_steps=4000,
    full_deviation=LAMBDA_FULL_SIZE,
)

_register_regime(
    "edelman-ch5-figB.11-largest-lambda-fails-to-train",
    "App. B.3.5: 'the model fails to train at large values of lambda'; caption: 'larger lambda improves "
    "generalization, but can cause optimization to fail (bottom row)': with weight decay 0.1 at m = 250 (where "
    "lambda = 0.01 groks: edelman-ch5-figB.11-finite-sample-grokking), per seed the training error stays above 0 "
    "throughout the budget. Target rate 1/2 (the typical run).",
    (RegimeSetting(250, 0.1, "no fit"),),
    (
        PostHoc(
            parameter="lambda = 0.1 at m = 250, budget 4000 steps",
            value="lambda = 0.1",
            when=f"{REGIME_PILOTS}; {REGIME_LONG_PILOTS}",
            why="the smallest weight decay of the pilots' grid {0, 0.001, 0.01, 0.03, 0.1, 0.3} at which no pilot "
            "seed reached training error 0, at any m tried; m = 250 is the grokking claim's sample size; the judged "
            "seeds 8-15 are disjoint from the pilots'",
        ),
    ),
)
