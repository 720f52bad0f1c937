"""Exact population gradient descent on W (V = cP fixed) orders every column of W by its decision list, the
sufficient condition for perfect classification of Sec. 4.3.2, and reaches perfect classification within
Theorem 4.3's step budget (docs/decision_lists.md).

Each seed is its own random task (random permutation, random lists of random length), all seeds trained as one
batched tensor on the report's device by :func:`verify.train.decision_lists.population_gd_w` (autograd), cross-checked
against the closed-form gradients of :func:`numerics.decision_lists.population_gd_w`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from numerics import decision_lists as nd
from theory import decision_lists as td
from verify.train import decision_lists as vd

from ..base import Claim, Deviation, Observation, PostHoc, Resolution, RunContext, register
from ..judges import Check, PerSeed, Population
from ..training import run_checkpointed
from .common import DOC, SRC


@dataclass(frozen=True)
class OrderingConfig:
    """Population GD on ``W`` over every ``n``-subset of ``L`` tokens, one random task per seed (lists of length
    1..``m``). ``c`` None: Theorem 4.3's ``c = 4 n^2 log L / delta`` (``delta`` of Assumption 4.3) and
    ``eta = 1 / lambda_max`` with ``lambda_max`` the Hessian's largest eigenvalue at ``W = 0`` (autograd); else that
    ``c`` and ``eta = eta_c / c``. ``rounding_eps`` sets the rounding allowances of the training dtype (machine epsilon
    eps): ``|W_torch - W_numpy| <= rounding_eps eps max(1, max |W|)`` and a loss increase between steps of at most
    ``rounding_eps eps max(1, L_0)`` (chosen after a float32 run, see the claims' ``post_hoc``)."""

    L: int = 8
    n: int = 3
    m: int = 4
    seeds: tuple[int, ...] = (0, 1, 2, 3)
    steps: int = 30
    c: float | None = None
    eta_c: float = 2.0
    rounding_eps: float = 1000.0


def _tasks(cfg: OrderingConfig) -> list[td.DecisionListTask]:
    return [td.random_task(cfg.L, cfg.m, s, min_length=1) for s in cfg.seeds]


def _predict_ordering(cfg: OrderingConfig) -> dict[str, Any]:
    """Per seed: the predicted order of every column (its decision list, then every other token), Theorem 4.3's c
    and the step budget's lower bound 32 M kappa c^2 / log L."""
    out = {}
    for s, task in zip(cfg.seeds, _tasks(cfg)):
        delta, _ = td.delta_a43(task, cfg.n)
        c = td.thm43_c(cfg.n, cfg.L, delta) if cfg.c is None else sympy.nsimplify(cfg.c)
        kappa = td.lambda_max_leading(cfg.L, cfg.n)
        out[f"seed={s}"] = {
            "column_orders": [[*lst, "others"] for lst in task.lists],
            "c": c,
            "step_budget_lower": 32
            * task.M
            * sympy.Rational(kappa.numerator, kappa.denominator)
            * c**2
            / sympy.log(cfg.L),
        }
    return out


def _training_eps(ctx: RunContext) -> float:
    """Machine epsilon of the dtype :func:`verify.train.decision_lists.population_gd_w` trains in (float64 unless
    ``--dtype`` says otherwise; tf32 stores float32)."""
    name = ctx.options.dtype_name("cuda" if str(ctx.resolved_device()).startswith("cuda") else "cpu", "float64")
    return float(np.finfo(np.float64 if name == "float64" else np.float32).eps)


def _column_orders(W: np.ndarray, task: td.DecisionListTask) -> list[list[Any]]:
    """Per column a of the learned W: the len(L_a) tokens with the largest W[., a], in decreasing order, then
    ``"others"`` when the last of them is strictly above every remaining token (else ``"tie"``): the observed order,
    which the judge compares with the predicted one (the decision list, then every other token)."""
    out = []
    for a, lst in enumerate(task.lists):
        col = W[:, a]
        order = sorted(range(len(col)), key=lambda t: (-col[t], t))
        top, rest = order[: len(lst)], order[len(lst) :]
        strict = all(col[x] > col[y] for x, y in itertools.pairwise(top)) and (not rest or col[top[-1]] > col[rest[0]])
        out.append([int(t) for t in top] + ["others" if strict else "tie"])
    return out


def _observe_ordering(cfg: OrderingConfig, ctx: RunContext) -> Observation:
    tasks = _tasks(cfg)
    cs, etas, lams = [], [], []
    for task in tasks:
        if cfg.c is None:
            c = float(td.thm43_c(cfg.n, cfg.L, td.delta_a43(task, cfg.n)[0]))
            lam = vd.hessian_lambda_max(
                task, cfg.n, c, device=ctx.device, ignore_memory_check=ctx.options.ignore_memory_check
            )
            cs.append(c)
            etas.append(1.0 / lam)
            lams.append(lam)
        else:
            cs.append(cfg.c)
            etas.append(cfg.eta_c / cfg.c)
            lams.append(float("nan"))
    run = run_checkpointed(
        ctx,
        "decision_lists_gd",
        {"config": repr(cfg), "cs": cs, "etas": etas},
        lambda options: vd.population_gd_w(
            vd.PopulationGDConfig(tuple(tasks), cfg.n, tuple(cs), tuple(etas), cfg.steps, tuple(cfg.seeds)), options
        ),
    )
    eps = _training_eps(ctx)
    per_seed = []
    # GD itself has no randomness: each seed names the random task drawn from it (a seed offset shifts the
    # configuration's seeds before the prediction: the claim is `seeded`), so the rows carry the task's seed
    for i, (s, task) in enumerate(zip(cfg.seeds, tasks)):
        ref = nd.population_gd_w(task, cfg.n, cs[i], etas[i], cfg.steps)
        budget = 32 * task.M * lams[i] / np.log(cfg.L) if cfg.c is None else float("inf")
        first = run.first_perfect[i]
        row = {
            "seed": s,
            "column_orders": _column_orders(run.W[i], task),
            "ordered_fraction": float(run.ordered[-1, i]),
            "accuracy": float(run.accuracy[-1, i]),
            "max_loss_increase": float(np.max(np.diff(run.loss[:, i]))) if len(run.steps) > 1 else 0.0,
            "loss_allowance": cfg.rounding_eps * eps * max(1.0, float(run.loss[0, i])),
            "first_perfect_step": first,
            "first_perfect_over_budget": (first / budget) if first is not None else float("inf"),
            "gap_to_closed_form_gd": float(np.abs(run.W[i] - ref.W).max()),
            "gap_allowance": cfg.rounding_eps * eps * max(1.0, float(np.abs(ref.W).max())),
            "c": cs[i],
            "eta": etas[i],
            "lambda_max_at_W0": lams[i],
            "final_loss": float(run.loss[-1, i]),
        }
        row["loss_increase_over_allowance"] = row["max_loss_increase"] / row["loss_allowance"]
        row["gap_over_allowance"] = row["gap_to_closed_form_gd"] / row["gap_allowance"]
        per_seed.append(row)
    plots = [
        {
            "name": "ordering",
            "kind": "lines",
            "series": [
                {"label": f"seed {s}", "x": run.steps, "y": run.ordered[:, i].tolist(), "marker": "."}
                for i, s in enumerate(cfg.seeds)
            ],
            "xlabel": "GD step",
            "ylabel": "fraction of columns ordered by their list",
        }
    ]
    return Observation(
        [row["ordered_fraction"] for row in per_seed],
        details={"per_seed": per_seed, "final_W_seed0": run.W[0].round(4).tolist(), "training_eps": eps},
        artifacts={"plots": plots},
        seeds=tuple(cfg.seeds),
    )


@dataclass(frozen=True)
class OrderingJudge(PerSeed):
    """Population GD on W (Theorem 4.3, Sec. 4.3.2): per random task, the run's checks (:class:`Check`) and two that
    read the prediction: every column's observed order (``column_orders``: its top len(L_a) tokens by W, strictly
    decreasing, then the rest) equals the predicted order (its decision list, then every other token), and, with
    ``budget``, the first perfect step is at most the predicted step budget 32 M kappa c^2 / log L (theory's
    leading term of 32 M lambda_max(W_0) / log L). The run has no randomness (``Population(deterministic=True)``):
    every task must meet every check."""

    budget: bool = False

    def seed_problems(self, predicted: Any, per_seed: list[dict[str, Any]], config: Any = None) -> list[list[str]]:
        problems = super().seed_problems(predicted, per_seed, config)
        for row, found in zip(per_seed, problems):
            want = predicted[f"seed={row['seed']}"]
            got_orders, want_orders = row["column_orders"], want["column_orders"]
            bad = [a for a, (g, w) in enumerate(zip(got_orders, want_orders)) if list(g) != list(w)]
            if bad or len(got_orders) != len(want_orders):
                a = bad[0] if bad else 0
                found.append(
                    f"{len(bad)} column(s) out of the predicted order, e.g. column {a}: observed {list(got_orders[a])}, "
                    f"predicted {list(want_orders[a])}"
                )
            if self.budget:
                first = row["first_perfect_step"]
                limit = float(want["step_budget_lower"])
                if first is None or not first <= limit:
                    found.append(f"first perfect step {first} above the predicted budget {limit:.4g}")
        return problems

    def describe(self) -> str:
        extra = "every column in the predicted order (its decision list, then the rest)"
        if self.budget:
            extra += ", first perfect step <= the predicted budget 32 M kappa c^2 / log L"
        return self.describe_adding("per task (one per seed)", extra)


def _judge(budget: bool) -> OrderingJudge:
    checks = [
        Check("ordered_fraction", "fraction of columns ordered by their list", lo=1.0),
        Check("accuracy", "accuracy on every n-subset", lo=1.0),
        Check("loss_increase_over_allowance", "largest loss increase between steps / rounding allowance", hi=1.0),
        Check("gap_over_allowance", "max |W_autograd - W_closed_form| / rounding allowance", hi=1.0),
    ]
    if budget:
        checks.append(Check("first_perfect_over_budget", "first perfect step / (32 M lambda_max(W_0) / log L)", hi=1.0))
    return OrderingJudge(
        checks=tuple(checks), headline="ordered_fraction", rule=Population(deterministic=True), budget=budget
    )


#: The rounding allowances of both claims, in units of the training dtype's machine epsilon.
_ROUNDING = PostHoc(
    "rounding allowances of |W_autograd - W_closed_form| and of a loss increase",
    "1000 eps of the training dtype x max(1, max |W|) and x max(1, L_0)",
    "after a --dtype float32 run failed the earlier float64 allowances 1e-9 and 1e-12 (observed gaps 2e-8 to "
    "2.1e-7 in float32, 1e-17 to 1e-15 in float64)",
    "a rounding allowance must follow the dtype the run trains in; 1000 eps leaves a margin of at least 400 over the "
    "observed gaps in both dtypes while an error in the gradient formula moves W by order 1",
)

register(
    Claim(
        id="karp-ch4-thm4.3-gd-ordering",
        resolution=Resolution(
            rel=0.01,
            why="the judge reads the predicted order of every column and the step budget",
            undetected="`c`: the task constant the prediction is built from, not a judged value; `step_budget_lower`: binding only for seeds whose run ends near it (seeds 2 and 3 end far above it)",
        ),
        source=f"{SRC}, Theorem 4.3 and the sufficient condition of Sec. 4.3.2 ({DOC})",
        statement="Population GD on W from W_0 = 0 with V = cP, c = 4n^2 log L/delta and eta = 1/lambda_max (the Hessian "
        "at W_0): the loss never increases, and W ends with every column ordered by its decision list, W[a_1,a] > ... > "
        "W[a_m,a] > max_{b not in L_a} W[b,a], hence perfect classification on every sequence, within the step budget "
        "32 M lambda_max/log L (random tasks, lists of length 1..4). The column orders and the step budget "
        "(its leading term 32 M kappa c^2/log L) are theory's predictions, read by the judge. The run has no "
        "randomness (one random task per seed, GD from W_0 = 0): every task must meet every check.",
        kind="training",
        seeded=True,  # each seed draws a task: --seed-offset draws fresh ones
        configs={
            "quick": OrderingConfig(),
            "full": OrderingConfig(L=12, n=4, m=5, seeds=tuple(range(8)), steps=200),
        },
        predict=_predict_ordering,
        observe=_observe_ordering,
        judge=_judge(budget=True),
        post_hoc=(_ROUNDING,),
    )
)

register(
    Claim(
        id="karp-ch4-gd-ordering-small-c",
        resolution=Resolution(
            rel=0.01,
            why="the judge reads the predicted order of every column and the step budget",
            undetected="`c`: the task constant the prediction is built from, not a judged value; `step_budget_lower`: binding only for seeds whose run ends near it (seeds 2 and 3 end far above it)",
        ),
        source=f"{SRC}, Sec. 4.3.2 (ordering by decision list) far below Theorem 4.3's c ({DOC})",
        statement="With c = 5, far below Theorem 4.3's c = 4n^2 log L/delta for the same tasks (over 800 times smaller at "
        "either scale: 4.2e3 quick, 1.3e4 full), population GD on W (eta = 2/c) still ends "
        "with every column ordered by its decision list (the predicted order) and perfect classification, the loss "
        "never increasing; every task (one per seed, no randomness in the run) must meet every check.",
        kind="training",
        seeded=True,  # each seed draws a task: --seed-offset draws fresh ones
        configs={
            "quick": OrderingConfig(c=5.0, steps=120),
            "full": OrderingConfig(L=12, n=4, m=5, seeds=tuple(range(8)), c=5.0, steps=1000),
        },
        predict=_predict_ordering,
        observe=_observe_ordering,
        judge=_judge(budget=False),
        deviations={
            scale: (
                Deviation(
                    "c and eta",
                    "Theorem 4.3: c = 4 n^2 log L / delta and eta = 1 / lambda_max at W_0",
                    "c = 5, eta = 2 / c",
                    "the claim's point: ordering far below the theorem's c (over 800 times smaller)",
                ),
            )
            for scale in ("quick", "full")
        },
        post_hoc=(_ROUNDING,),
    )
)
