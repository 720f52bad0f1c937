"""Values at the edge of the hypotheses (issue 11): a singular or zero Lambda gets a correct answer (never
zoo/NaN) and ``unique`` says when it is not unique; class weights must be non-negative; TrainConfig refuses
NaN, infinities and out-of-range optimiser settings."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import lsa as nl
from theory import groups as tg
from theory import lsa as tl
from theory._checks import InputError

# ----------------------------------------------------------------------------------- LSA, singular Lambda


def _finite(x: sympy.Expr) -> bool:
    return x.is_finite is not False and not x.has(sympy.nan, sympy.zoo, sympy.oo) and math.isfinite(float(x))


def _loss(U: sympy.Matrix, Lam: sympy.Matrix, N: int) -> sympy.Expr:
    """l~(U, 1) + 1/2 tr Lambda, from Lemma 5.1's formula (independent of optimal_rank_r's closed form); exact for the
    rational inputs drawn here (sympy's nsimplify, once applied here, turns 1471/1612 into a product of powers)."""
    loss = tl.population_loss(U, 1, Lam, N)
    assert isinstance(loss, sympy.Rational), loss
    return loss


@settings(max_examples=40, deadline=None)
@given(
    lam=st.lists(st.sampled_from([0, 0, 1, 2, 3, Fraction(1, 2)]), min_size=1, max_size=4),
    N=st.integers(1, 6),
    data=st.data(),
)
def test_optimal_rank_r_on_singular_lambda(lam, N, data):
    """For any PSD diagonal Lambda (zeros included) the answer is finite, its loss is the Lemma 5.1 loss of the
    returned U, and ``unique`` is False exactly when a different U of rank <= r has the same loss."""
    d = len(lam)
    r = data.draw(st.integers(0, d))
    Lam = sympy.diag(*[sympy.Rational(x) for x in lam])
    opt = tl.optimal_rank_r(Lam, N, r)
    assert all(_finite(x) for x in [opt.loss, opt.reduced_loss, *opt.v, *opt.U])
    assert sympy.simplify(_loss(opt.U, Lam, N) - opt.loss) == 0
    assert opt.U.rank() <= r
    assert opt.loss <= tl.optimal_rank_r(Lam, N, max(r - 1, 0)).loss  # more rank never hurts
    order = sorted(range(d), key=lambda i: -lam[i])
    null = [i for i in range(d) if lam[i] == 0]
    if r >= 1 and null:
        # an optimum along a null direction of Lambda: move U's entry (top, null) -> same loss, same rank bound
        top = order[0]
        U2 = opt.U.copy()
        U2[null[0], top] += 1
        if top != null[0]:
            assert U2.rank() <= r or opt.U[top, top] == 0
            assert sympy.simplify(_loss(U2, Lam, N) - opt.loss) == 0
        assert not opt.unique
    if r == 0:
        assert opt.unique and opt.loss == sum(sympy.Rational(x) for x in lam) / 2
    if not null and (r == d or lam[order[r - 1]] > lam[order[r]] if r else True):
        assert opt.unique


def test_zero_lambda_has_an_answer():
    """derive lsa --lambda 0,0,0: every U is optimal, the loss is 0 and U = 0 is returned (not zoo/NaN)."""
    for r in range(4):
        opt = tl.optimal_rank_r(sympy.zeros(3, 3), 5, r)
        assert opt.loss == 0 and sympy.zeros(3, 3) == opt.U and opt.unique == (r == 0)
        assert float(opt.loss) == 0.0
    assert tl.optimal_losses(sympy.zeros(2, 2), 3) == [0, 0, 0]
    assert tl.expected_noisy_eval_loss(sympy.zeros(2, 2), 3, 1, 4, 1) == 0
    with pytest.raises(ValueError, match="Lambda = 0"):
        tl.full_rank_optimum(sympy.zeros(2, 2), 3)
    U, v, Lr, _, _ = nl.closed_form(np.zeros((3, 3)), 5, 2)  # the float version agrees
    assert Lr == 0.0 and not U.any() and not v.any()


@pytest.mark.parametrize("bad", [sympy.zoo, sympy.nan, sympy.oo, float("nan"), float("inf"), "1/0"])
def test_lambda_entries_must_be_finite_numbers(bad):
    with pytest.raises(ValueError):
        tl.optimal_rank_r([[bad, 0], [0, 1]], 3, 1)


# ----------------------------------------------------------------------------------- class weights


def test_kappa_refuses_negative_class_weights():
    tau = tg.tau("S3")
    assert tg.kappa("S3", class_weights=tau) == tg.kappa("S3")
    with pytest.raises(InputError, match="non-negative") as info:
        tg.kappa("S3", class_weights=[0, -Fraction(1, 3), Fraction(1, 2)])
    assert info.value.param == "class_weights"
    with pytest.raises(InputError):
        tg.single_neuron_max("S3", class_weights=[0, float("nan"), 1])
    with pytest.raises(InputError):
        tg.kappa("S3", class_weights="0,1,1")


# ----------------------------------------------------------------------------------- TrainConfig


BAD_TRAIN = [
    {"lam": float("nan")},
    {"lam": -1e-3},
    {"lam": float("inf")},
    {"weight_decay": float("nan")},
    {"weight_decay": -0.1},
    {"eps": 0.0},
    {"eps": -1e-8},
    {"eps": float("nan")},
    {"betas": (0.9, 1.0)},
    {"betas": (-0.1, 0.999)},
    {"betas": (float("nan"), 0.999)},
    {"init_std": 0.0},
    {"init_std": -1.0},
    {"init_std": float("inf")},
    {"momentum": -0.5},
    {"reg_power": float("nan")},
    {"lr": float("inf")},
]


@pytest.mark.parametrize(
    "change", BAD_TRAIN, ids=[next(iter(c)) + "=" + str(next(iter(c.values()))) for c in BAD_TRAIN]
)
def test_train_config_refuses_bad_optimiser_settings(change):
    from verify.train.polynomial import TrainConfig  # deferred: imports torch

    name = next(iter(change))
    with pytest.raises(ValueError, match=name):
        TrainConfig(**{"steps": 10, "lr": 1e-2, **change})


def test_train_config_accepts_the_edges():
    from verify.train.polynomial import TrainConfig  # deferred: imports torch

    cfg = TrainConfig(steps=0, lr=1e-2, lam=0.0, weight_decay=0.0, betas=(0.0, 0.999), init_std=1e-6, momentum=0.0)
    assert cfg.betas == (0.0, 0.999) and TrainConfig.from_dict(cfg.to_dict()) == cfg
