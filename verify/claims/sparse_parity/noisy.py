"""Edelman thesis (2024) Ch. 5, App. B.3.6, Fig. B.12: online SGD learns noisy sparse parities. Labels are
chi_S(x) flipped with probability p (eps = 1 - 2p, :func:`theory.scaling.noisy_parity_correlation`); the models learn
the features and reach high accuracy on the noiseless distribution "even with 49% of labels flipped"
(docs/sparse_parity.md).

``edelman-ch5-figB.12-noisy-parity``: per seed, at every noise level of the grid, the clean validation accuracy
reaches 1 - ``target_error`` within the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from theory.scaling import noisy_parity_correlation
from verify.sweep import Cell, CellResult
from verify.train.sparse_parity import SparseParityConfig, divergence_reason

from ..base import Claim, Deviation, Observation, PostHoc, register
from ..judges import Population
from .common import (
    SRC_CH5,
    Fig51Model,
    chunked_cells,
    diverged_at,
    ran_seeds,
    summary_grid,
    tc_list,
    xavier_relu_mlp,
)
from .summarised import SummarisedPopulation

__all__ = ["NOISY_RULE", "NoisyConfig", "NoisyParity"]


@dataclass(frozen=True)
class NoisyConfig(Fig51Model):
    """The Fig. 5.1 model (:class:`~verify.claims.sparse_parity.common.Fig51Model`: a width-100 ReLU MLP, Xavier init,
    online SGD on the hinge loss, eta = 0.1) on the (n, k)-parity with training labels flipped with each probability
    of ``flips``; a seed succeeds at a level when its clean validation error reaches ``target_error`` within
    ``steps``."""

    n: int
    k: int
    flips: tuple[str, ...]
    seeds: tuple[int, ...]
    target_error: float = 0.05
    eval_every: int = 20

    def parity(self, flip: str, seeds: tuple[int, ...]) -> SparseParityConfig:
        return xavier_relu_mlp(
            self,
            self.n,
            self.k,
            self.width,
            seeds,
            self.eval_every,
            label_noise=float(flip),
            target_error=self.target_error,
        )


#: "The models learn the features and converge successfully" describes the typical run (p0 = 1/2); power against 0.95.
NOISY_RULE = Population(p0=0.5, p_alt=0.95)


@dataclass(frozen=True)
class NoisyParity(SummarisedPopulation):
    """Fig. B.12 as a seed population: a seed succeeds when, at every flip probability of the grid, its clean
    validation accuracy reaches 1 - target_error within the budget (a learner that found nothing stays at the
    predicted chance level 1/2, whatever the noise)."""

    rule: Population = NOISY_RULE
    criterion: ClassVar[str] = (
        "per seed: at every flip probability, clean validation accuracy >= 1 - target_error within the budget "
        "(chance is 1/2)"
    )

    def units(self, predicted: Any, obs: Any, config: Any) -> list[dict[str, Any]]:
        rows = obs.details["levels"]
        out = []
        for e, seed in enumerate(obs.details["seeds"]):
            problems = [
                f"p={r['flip']}: best clean accuracy {r['best_accuracy'][e]:.3f} < {1 - config.target_error:g} "
                f"within {config.steps} steps"
                for r in rows
                if r["t_c"][e] is None
            ]
            out.append({"label": f"seed {seed}", "problems": problems})
        return out

    def summary(self, predicted: Any, obs: Observation, config: Any) -> str:
        return "; ".join(
            f"p={r['flip']} (eps = {float(predicted['eps'][r['flip']]):g}): {r['converged']}/{len(r['t_c'])} reach "
            f"{1 - config.target_error:g} clean accuracy, median t_c {r['median']:g}"
            for r in obs.details["levels"]
        )


def _predict(cfg: NoisyConfig) -> dict[str, Any]:
    return {"chance": 0.5, "eps": {p: float(noisy_parity_correlation(p)) for p in cfg.flips}}


def _cells(cfg: NoisyConfig) -> list[Cell]:
    return chunked_cells((f"p={p}", cfg.parity(p, cfg.seeds)) for p in cfg.flips)


def _aggregate(cfg: NoisyConfig, results: list[CellResult]) -> Observation:
    rows = []
    for p in cfg.flips:
        mine = [r for r in results if r.cell.config.label_noise == float(p)]
        tc = np.concatenate([r.value["t_c"] for r in mine])
        best = np.concatenate([r.value["best_accuracy"] for r in mine])
        rows.append(
            {
                "flip": p,
                "t_c": tc_list(tc),
                "best_accuracy": best.tolist(),
                "median": float(np.median(tc)),
                "converged": int(np.isfinite(tc).sum()),
                "divergence": divergence_reason(diverged_at(mine), cfg.eval_every),
            }
        )
    seeds = [s for r in results if r.cell.config.label_noise == float(cfg.flips[0]) for s in ran_seeds(r)]
    blown = [f"p={r['flip']}: {r['divergence']}" for r in rows if r["divergence"]]
    return Observation(
        {r["flip"]: r["converged"] / len(r["t_c"]) for r in rows},
        details={"levels": rows, "seeds": seeds, "divergence": "; ".join(blown) or None},
        seeds=cfg.seeds,
    )


GRID = summary_grid("edelman-ch5-figB.12-noisy-parity", _cells, _aggregate)

QUICK_SIZE = Deviation(
    parameter="instance and batch size",
    source="(50, 3) at 'various batch sizes B', labels flipped with probability p up to '49% of labels flipped "
    "randomly (i.e. eps = 0.01)' (the caption's eps = 1 - 2p would make 49% eps = 0.02), 5 seeds per curve "
    "(App. B.3.6, Fig. B.12)",
    value="(10, 3), B = 128, p = 0.25 and 0.45 (eps = 0.5 and 0.1), 16 seeds",
    why="CPU budget: at (10, 3) and p = 0.45 a 16-seed ensemble takes about 25 s",
)

POST_HOC = (
    PostHoc(
        parameter="success level 1 - target_error",
        value="0.95 clean validation accuracy",
        when="after a 16-seed pilot at (10, 3), B = 128 (p = 0.3: best accuracy 0.951-1.0; p = 0.45: every seed "
        "reached 0.95 within 3100 steps)",
        why="the figure's statement is 'nontrivial (and sometimes 100%) accuracy' with a constant learning rate, "
        "under which the iterates do not always converge to 100 %",
    ),
)

register(
    Claim(
        id=GRID.claim_id,
        source=f"{SRC_CH5}, App. B.3.6, Fig. B.12; docs/sparse_parity.md",
        statement="Online SGD (width-100 ReLU MLP, hinge, eta = 0.1) learns noisy sparse parities, labels chi_S(x) "
        "flipped with probability p (eps = 1 - 2p): per seed, at every flip probability of the grid, the accuracy "
        "on the noiseless distribution reaches 0.95 within the budget (chance: 1/2). Target rate 1/2 ('typically').",
        kind="training",
        configs={
            "quick": NoisyConfig(
                n=10, k=3, flips=("0.25", "0.45"), seeds=tuple(range(16)), batch_size=128, steps=10_000, num_threads=1
            ),
            "full": NoisyConfig(
                n=50,
                k=3,
                flips=("0.1", "0.25", "0.4", "0.45", "0.49"),
                seeds=tuple(range(64)),
                target_error=0.05,
                batch_size=1024,
                steps=1_000_000,
                eval_every=100,
                n_val=8192,
            ),
        },
        predict=_predict,
        observe=GRID.observe,
        judge=NoisyParity(),
        deviations={"quick": (QUICK_SIZE,), "full": ()},
        post_hoc=POST_HOC,
        insensitive=(
            "the prediction is the chance level 1/2 and the correlation eps = 1 - 2p of each level, which the "
            "per-seed criterion (a fixed accuracy level) does not read; the statement is qualitative (SGD learns "
            "despite the noise), and the record's accuracies show how far each seed is from chance"
        ),
    )
)
