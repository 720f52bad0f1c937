"""Small read-outs of the trainers' results and schedules, on hand-made values: sparse parity's step look-up and
divergence reason, the polynomial lr doubling steps, the sweep's checks, tau of the local-signal run, the attention
memory check's scope, the Markov evaluation chunk and the decision-list W, V configuration."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from theory import decision_lists as td
from verify.train import attention as va
from verify.train import local_signal as vls
from verify.train import markov as vm
from verify.train import sparse_parity as vsp
from verify.train import sparse_variable as vsv
from verify.train.decision_lists import PopulationGDWVConfig
from verify.train.polynomial import doubling_steps


def _result(steps) -> vsp.SparseParityResult:
    T, E = len(steps), 2
    z = np.zeros((T, E))
    cfg = vsp.SparseParityConfig(n=4, k=2, width=2, eval_every=5, seeds=(0, 1))
    return vsp.SparseParityResult(
        cfg, np.asarray(steps), z, z, z, z, z, np.full(E, np.inf), np.zeros(E, bool), 0, 0.0, "cpu", "float32"
    )


def test_index_at_is_the_last_evaluation_at_or_before_the_step() -> None:
    """At an evaluated step its own index; between evaluations the earlier one; before the first, the first."""
    result = _result([0, 5, 10])
    assert result.index_at(5).item() == 1
    assert result.index_at(9.5).item() == 1
    assert result.index_at(10).item() == 2
    assert result.index_at(-1).item() == 0
    assert result.index_at(np.array([0, 4, 11])).tolist() == [0, 0, 2]


def test_divergence_reason_only_when_every_seed_diverged() -> None:
    """None unless every seed diverged; one step, or the range of steps, where they did."""
    assert vsp.divergence_reason(np.array([np.inf, np.inf]), 5) is None
    assert vsp.divergence_reason(np.array([10.0, np.inf]), 5) is None
    assert "at step 10:" in vsp.divergence_reason(np.array([10.0, 10.0]), 5)
    reason = vsp.divergence_reason(np.array([20.0, 10.0, 15.0]), 5)
    assert "at steps 10-20" in reason and "all 3 seeds" in reason and "every 5 steps" in reason


def test_doubling_steps_start_where_asked() -> None:
    """start, start + every, ... (count of them); start defaults to every."""
    assert doubling_steps(every=1000, count=3, start=500) == (500, 1500, 2500)
    assert doubling_steps(every=10, count=2) == (10, 20)


@pytest.mark.parametrize(
    "kw", [dict(Ts=(10, 5), ms=(1, 2)), dict(Ts=(5, 5), ms=(1, 2)), dict(Ts=(5,), ms=(1, 2), level=0.0)]
)
def test_sweep_config_refuses_unordered_grids_and_level_zero(kw) -> None:
    """Ts and ms strictly increase; the success level lies in (0, 1]."""
    with pytest.raises(ValueError):
        vsv.SweepConfig(**kw)
    assert vsv.SweepConfig(Ts=(5, 6), ms=(1, 2), level=1.0).level == 1.0


def test_tau_is_nan_where_the_signal_is_not_positive() -> None:
    """tau = |b| / c where c > 0, NaN where c <= 0 (no signal direction learnt)."""
    z = np.zeros((1, 3))
    run = vls.SignalRun(None, np.array([0]), np.array([[2.0, 0.0, -1.0]]), z, np.array([[-1.0, 3.0, 1.0]]), z, 0.0)
    tau = run.tau
    assert tau[0, 0] == 0.5 and np.isnan(tau[0, 1]) and np.isnan(tau[0, 2])


def test_attention_memory_check_ignores_other_models() -> None:
    """check_memory returns None (no estimate) for a model that is not an AttentionEnsemble."""
    assert va.check_memory(torch.nn.Linear(2, 2), torch.zeros(1, 2, 3, dtype=torch.int64), ignore=False) is None


def test_markov_evaluation_takes_at_least_one_chain_per_pass() -> None:
    """However large one chain's scores, an evaluation pass holds at least one chain."""
    assert vm._chains_per_chunk(10 * vm.EVAL_SCORE_BYTES) == 1


def test_wv_config_needs_one_step_size_per_member() -> None:
    """Every member has its task, V0, c, eta and seed."""
    task = td.DecisionListTask(perm=(1, 2, 0), lists=((1, 0), (1,), (2,)))
    with pytest.raises(ValueError, match="one task, V0, c, eta and seed"):
        PopulationGDWVConfig([task], 3, [np.zeros((3, 3))], [1.0], [0.1, 0.2], 2, (0,))
