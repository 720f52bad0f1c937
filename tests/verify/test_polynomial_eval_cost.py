"""The plan counts the polynomial-network trainer's evaluations (verify/report/plan.py, ``_polynomial_estimate``):
an evaluation's multiply-adds (``StepShapes.flops_per_evaluation``) against torch's own flop counter over the
trainer's evaluation (``ensemble_metrics``), and the plan's time growing by exactly that per evaluation."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from verify.claims import registry
from verify.report import plan
from verify.sweep.cost import DeviceSpeed
from verify.train.homogeneous import HomogeneousEnsemble
from verify.train.polynomial import ensemble_metrics
from verify.train.polynomial_step import StepShapes


@pytest.mark.parametrize("dense", [False, True])
def test_an_evaluation_costs_what_torch_counts(dense: bool) -> None:
    S, m, k, d, C, N = 3, 5, 2, 4, 4, 37
    g = torch.Generator().manual_seed(0)
    model = HomogeneousEnsemble(
        torch.randn(S, m, k, d, generator=g, dtype=torch.float64),
        torch.randn(S, m, C, generator=g, dtype=torch.float64),
        2,
    )
    index = torch.randint(0, d, (N, k), generator=g)
    inputs = torch.nn.functional.one_hot(index, d).to(torch.float64) if dense else index
    labels = torch.randint(0, C, (N,), generator=g)
    with FlopCounterMode(display=False) as counter:
        ensemble_metrics(model, inputs, labels)
    shapes = StepShapes(S, m, k, d, C, 2, dense, 8, N, 8, 2)
    assert shapes.flops_per_evaluation == counter.get_total_flops()


def test_the_plan_adds_each_evaluation_of_a_polynomial_claim() -> None:
    """Shi Fig. 4.1 at k = 5 trains on mini-batches of 1,024 of 6.4 million points: an evaluation there costs about
    2,000 updates, so its 21 evaluations are about half of the run (the plan once left them out)."""
    claim = registry()["shi-fig4.1-split-single-frequency-k5"]
    config = claim.configs["full"]
    speed = DeviceSpeed("cpu", 0.0, 1e9)
    every = plan._polynomial_estimate(claim, config, "cpu", speed)
    ends = plan._polynomial_estimate(
        claim, replace(config, train=replace(config.train, eval_every=config.train.steps)), "cpu", speed
    )
    assert every is not None and ends is not None and every.seconds is not None and ends.seconds is not None
    assert "21 evaluations" in every.note and "2 evaluations" in ends.note
    task, degree = plan._polynomial_task(config)
    shapes = StepShapes(
        len(config.train.seeds), config.width, task.n_blocks, task.block_size, task.n_classes, degree, False,
        config.train.batch_size, task.n_points, 8, 2,
    )  # fmt: skip
    assert every.seconds - ends.seconds == pytest.approx(19 * shapes.flops_per_evaluation / 2 / 1e9, rel=1e-12)
    assert every.per_update == ends.per_update == pytest.approx(shapes.flops_per_step / 2 / 1e9, rel=1e-12)
    updates = config.train.steps * every.per_update
    assert 0.4 < (every.seconds - updates) / every.seconds < 0.6
