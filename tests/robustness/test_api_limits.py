"""Size and range checks before any work (issue 11): huge inputs give a LimitError (a ValueError) at once,
naming the parameter, the limit and what to use instead; valid inputs at the edge are not refused."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import groups as ng
from numerics import limits
from numerics import modular as nm
from numerics import parity as npar
from numerics.single_neuron import maximize_single_neuron
from tests.robustness._watchdog import watchdog
from theory import boolean as tb
from theory import finite_groups as fg
from theory import groups as tg
from theory import lsa as tl
from theory import modular as tm
from theory import parity as tp
from theory._checks import MAX_DIGITS, LimitError

RNG = np.random.default_rng(0)

# (call, parameter named by the error, a fragment of the message: the limit or the hint)
REFUSED = [
    (lambda: tm.max_margin(3, 10**6), "k", "for this p the exact closed forms accept k <="),
    (lambda: tm.max_margin(3, 10**18), "k", "accept k <="),
    (lambda: tm.min_width(5, 10**6), "k", "accept k <="),
    (lambda: tm.single_neuron_bound(3, 5000), "k", "accept k <="),
    (lambda: tm.max_margin(10**5000 + 1, 2), "p", "gamma*"),
    (lambda: tm.construction(3, 12), "k", "min_width"),
    (lambda: tm.polarization_identity(30), "k", "k <= 10"),
    (lambda: tm.cos_sum_expansion(10**6), "k", "k <= 9"),
    (lambda: tm.optimal_neuron(5, 10**9), "k", "limit"),
    (lambda: tm.psi_time_domain([[0] * 11] * 4, [0] * 11), "k", "psi_fourier"),
    (lambda: tp.max_margin(10**6), "k", "the exact closed forms accept k <="),
    (lambda: tp.min_width(10**6), "k", "the exact closed forms accept k <="),
    (lambda: tp.construction(30, range(30)), "k", "without building it"),
    (lambda: tp.cube(30), "n", "SparseParityTask"),
    (lambda: tp.expectation_identity_residual(60, 8), "n", "small n"),
    (lambda: npar.construction_network(30, range(30)), "k", "without building it"),
    (lambda: npar.SparseParityTask(30, (0,)), "n", "at most n = 26"),
    (lambda: fg.group("D500"), "group", "|G| <= 720"),
    (lambda: fg.group("Z2^12"), "group", "|G| <= 720"),
    (lambda: fg.group("Z1000000"), "group", "theory.modular"),
    (lambda: fg.group("Z2^100000xS3"), "group", "|G| <= 720"),
    (lambda: fg.dihedral_group(10**9), "n", "|G| <= 720"),
    (lambda: fg.elementary_abelian_2_group(12), "k", "|G| <= 720"),
    (lambda: tg.max_margin("D500"), "group", "|G| <= 720"),
    (lambda: fg.character_table("Z120"), "group", "theory.modular"),
    (lambda: fg.character_table("Z2^7"), "group", "conjugacy classes"),
    (lambda: fg.burnside_character_table("Z7"), "group", "character_table"),
    (lambda: fg.partitions(10**6), "n", "limit"),
    (lambda: fg.standard_tableaux((30, 10)), "shape", "n <= 6"),
    (lambda: fg.isotypic_projector("S6", 1), "G", "numerics.groups.isotypic_projectors"),
    (lambda: tb.majority_coefficient(10_000_001, 3), "n", "majority_asymptotic"),
    (lambda: tb.majority_level_weight(10_000_001, 10_000_001), "n", "majority_asymptotic"),
    (lambda: tb.majority_gap(10_000_001, 2), "n", "majority_asymptotic"),
    (lambda: tb.majority_coefficients(10**5), "n", "majority_coefficient(n, k)"),
    (lambda: tb.half_coefficient(10**8, 2), "m", "limit"),
    (lambda: tb.rho(10**7 + 1), "k", "limit"),
    (lambda: tb.oscillating_polynomial(10**6), "k", "sinusoid_activation"),
    (lambda: tb.random_search_tc_probability(10**6, 5 * 10**5, 0.5), "n", "float64"),
    (lambda: tb.lemma_c2_probability(10**6, 3, 5 * 10**5), "n", "limit"),
    (lambda: tb.lemma_b2_bound(10**9 + 1, 10**6), "k", "limit"),
    (lambda: tl.optimal_rank_r(sympy.diag(*range(1, 101)), 5, 3), "Lambda", "d <= 64"),
    (lambda: tl.optimal_rank_r(np.ones((40, 40)), 5, 3), "Lambda", "d <= 24"),
    (lambda: nm.ModularTask(3, 100), "k", "2^62"),
    (lambda: nm.random_network(5, 2, 10**12, RNG), "width", "memory available"),
    (lambda: nm.construction_network(3, 2, width=10**12), "width", "memory available"),
    (lambda: npar.random_network(4, 2, 10**12), "width", "memory available"),
    (lambda: ng.random_network("S3", 10**12, RNG), "width", "memory available"),
    (lambda: ng.construction_network("S3", width=10**12), "width", "memory available"),
    (lambda: maximize_single_neuron(nm.ModularTask(3, 1), 1, n_starts=10**8), "n_starts", "a few dozen starts"),
]


@pytest.mark.parametrize("call,param,fragment", REFUSED, ids=[f"{i}-{p}" for i, (_, p, _) in enumerate(REFUSED)])
def test_huge_inputs_are_refused_at_once(call, param, fragment):
    # The sizes are hours of work or terabytes of memory: only a check before the work answers within the guard.
    with pytest.raises(LimitError) as info, watchdog("the refusal"):
        call()
    err = info.value
    assert isinstance(err, ValueError) and err.param == param
    assert fragment in str(err) and str(err).startswith(f"{param} = "), str(err)


def test_the_memory_check_compares_with_available_memory(monkeypatch):
    """The estimate is compared with what the machine has now: the same call passes with enough memory."""
    monkeypatch.setattr(limits, "available_memory", lambda: 10 * 2**20)  # 10 MiB free
    # 100000 neurons x (k+1) p = 15 float64 weights = 12,000,000 B = 11.4 MiB > 50 % of 10 MiB
    with pytest.raises(
        LimitError, match=r"width = 100,000 is too large: .* needs about 11\.4 MiB, above 50% of the 10\.0 MiB"
    ):
        nm.random_network(5, 2, 100_000, RNG)
    assert nm.random_network(5, 2, 40_000, RNG).width == 40_000  # 4.6 MiB: within the budget
    monkeypatch.setattr(limits, "available_memory", lambda: 2**30)
    assert nm.random_network(5, 2, 100_000, RNG).width == 100_000


def test_limits_allow_the_edge():
    """Valid input is not refused: the largest accepted values work and give finite numbers."""
    assert math.isfinite(float(tm.max_margin(3, 400)))  # k = 400 used to overflow a float in the CLI
    assert tp.max_margin(1400) > 0
    assert fg.group("S6").order == 720 and fg.group("D4xZ2^2").order == 32
    assert len(fg.character_table("Z60").names) == 60
    assert tb.majority_coefficient(5, 5) == tb.majority_coefficient_bruteforce(5, 5) == Fraction(3, 8)
    assert tb.majority_level_weight(7, 7) == tb.majority_coefficient_bruteforce(7, 7) ** 2
    assert tb.majority_coefficient(tb.MAX_EXACT_N, 3) < 0  # 13287: an integer over 2^n, at most 4000 digits
    assert len(str(tb.majority_coefficient(tb.MAX_EXACT_N, tb.MAX_EXACT_N).denominator)) <= 4000  # it prints
    assert nm.random_network(5, 2, 0, RNG).width == 0  # --random-atoms 0 is valid


@settings(max_examples=25, deadline=None)
@given(p=st.integers(1, 500).map(lambda x: 2 * x + 1), k=st.integers(1, 4000))
def test_the_named_modular_limit_is_the_boundary(p, k):
    """The k named in the message is accepted and k + 1 is refused; accepted values print (<= 4300 digits)."""
    try:
        value = tm.max_margin(p, k)
    except LimitError as err:
        k_max = int(str(err).split("accept k <= ")[1].split(";")[0])
        assert k_max < k
        assert len(str(tm.max_margin(p, k_max))) < 2 * MAX_DIGITS + 100
        with pytest.raises(LimitError):
            tm.max_margin(p, k_max + 1)
    else:
        numerator, denominator = sympy.fraction(sympy.radsimp(value))
        assert len(str(numerator)) + len(str(denominator)) < 2 * (MAX_DIGITS + 50)


@settings(max_examples=30, deadline=None)
@given(order=st.integers(1, 3000), name=st.sampled_from(["Z{}", "D{}", "Z2^{}", "S3xZ{}"]))
def test_group_order_limit_matches_the_built_group(order, name):
    """Names are refused exactly when the built group would exceed |G| <= 720 (independent: the Cayley table)."""
    if name == "Z2^{}":
        order = order % 12 + 1
    if name == "D{}" and order < 3:
        order = 3
    if name in ("Z{}", "S3xZ{}") and order < 2:
        order = 2
    label = name.format(order)
    expected = {"Z{}": order, "D{}": 2 * order, "Z2^{}": 2**order, "S3xZ{}": 6 * order}[name]
    if expected > fg.MAX_GROUP_ORDER:
        with pytest.raises(LimitError, match=r"\|G\| <= 720"):
            fg.group(label)
    elif expected <= 120:
        G = fg.group(label)
        assert G.order == len(G.table) == expected


@pytest.mark.parametrize("k", [10**20, 10**400])
def test_astronomical_k_is_a_limit_error_not_an_overflow(k):
    """k beyond float range (10^308) is refused like any other size, without an OverflowError or a hang."""
    from numerics.modular import ModularTask
    from theory import modular as tm
    from theory._checks import LimitError

    with pytest.raises(LimitError, match=r"--k|k = "):
        tm.max_margin(5, k)
    with pytest.raises(LimitError, match="too large"):
        ModularTask(5, k)


def _loop_refusals():
    """Calls whose Python loops (not their arrays) make them hours long: each is refused by its cost formula, which
    counts every loop step as numerics.limits.STEP_COST entries (issue: loop counts checked on array entries only)."""
    from numerics import decision_lists as nd
    from numerics import local_signal as nl
    from numerics import local_signal_minibatch as nmb
    from numerics import markov as nmk
    from numerics import parity_sgd as nps
    from numerics import polynet as npn
    from numerics import sparse_variable as nsv
    from theory.decision_lists import random_task

    task = random_task(5, 3, seed=0)
    W, S = np.zeros((5, 5)), nd.subsets_array(5, 3)
    pg = nmb.population_gradient(3, 0.6, 0.8, 0.3, -0.1)
    return [
        (lambda: nd.adversarial_e(task, W, 4.0, 0.1, S, 10**6, W), "iters"),
        (lambda: nd.population_gd_w(task, 3, 4.0, 50.0, 10**6), "steps"),
        (lambda: nd.population_gd_wv(task, 3, 2.0 * nd.permutation_matrix(task), 1.0, 10**6), "steps"),
        (lambda: nl.kernel_best_error(4, 2, [0.0], 10**6, 40, 40, seed=0), "inits"),
        (lambda: nmb.minibatch_deviations(3, 2, 0.6, 0.8, 0.3, -0.1, 10, 10**6, seed=0, population=pg), "batches"),
        (lambda: nsv.lemma47_ratios(10**6, np.random.default_rng(0)), "n_random"),
        (lambda: npn.flow_error_crossings(np.ones((3, 5)), [0.0], grid=10**6), "grid"),
        (lambda: nps.lemB5_slot_cover(2, 24, [-0.5, 0.0, 0.5], [0.0, 0.5], 10**6, 0), "draws"),
        (lambda: nmk.mc_strategy_kl(2, 10**6, "bigram", 2, np.random.default_rng(0)), "t"),
        (lambda: nmk.mc_counts_bayes_kl(2, 10**6, 2, np.random.default_rng(0)), "t"),
        # sizes of 10^30 are refused naming the parameter, not by numpy's "maximum size exceeded" errors
        (lambda: nl.kernel_best_error(4, 2, [0.0], 1, 40, 40, seed=0, m=10**30), "m"),
        (lambda: npn.flow_error_crossings(np.ones((3, 5)), [0.0], grid=10**30), "grid"),
    ]


LOOP_REFUSALS = _loop_refusals()


@pytest.mark.parametrize("call,param", LOOP_REFUSALS, ids=[p for _, p in LOOP_REFUSALS])
def test_long_python_loops_are_refused_at_once(call, param):
    # Each value was accepted before and runs for minutes to hours; the refusal must come before the first step.
    with pytest.raises(LimitError) as info, watchdog("the refusal"):
        call()
    err = info.value
    assert err.param == param and str(err).startswith(f"{param} = "), str(err)
    assert "above the limit" in str(err), str(err)


def test_kappa_moments_trials_is_a_count():
    from numerics import looped as nlp

    with pytest.raises(LimitError) as info, watchdog("the refusal"):
        nlp.kappa_moments(np.random.default_rng(0), 16, 4, draws=100, trials=10**30)
    assert info.value.param == "trials"


def test_minibatch_dimension_is_checked_before_allocating(monkeypatch):
    """d = 10^6 used to build np.eye(d) (8 TB) first: a MemoryError; now the draw's size is checked, naming d."""
    from numerics import local_signal_minibatch as nmb

    pg = nmb.population_gradient(3, 0.6, 0.8, 0.3, -0.1)
    monkeypatch.setattr(limits, "available_memory", lambda: 4 * 2**30)
    with pytest.raises(LimitError) as info, watchdog("the refusal"):
        nmb.minibatch_deviations(3, 10**6, 0.6, 0.8, 0.3, -0.1, 500, 3, seed=0, population=pg)
    assert info.value.param == "d" and "memory available" in str(info.value)


def test_huge_integer_reals_are_numbers():
    """An int beyond int64 (10^30) is a real number like 1e30 (it was an object array: numpy's isfinite failed);
    one beyond the float range is an InputError naming the parameter."""
    from numerics import markov as nmk
    from theory._checks import InputError

    seqs = np.array([[0, 1, 1, 0, 1]])
    assert np.array_equal(
        nmk.strategy_probs(seqs, 2, "bigram", alpha=10**30), nmk.strategy_probs(seqs, 2, "bigram", alpha=1e30)
    )
    a, b = npar.random_network(4, 2, 3, scale=10**30), npar.random_network(4, 2, 3, scale=1e30)
    assert np.array_equal(a.U, b.U) and np.array_equal(a.W, b.W)
    for call, param in (
        (lambda: nmk.strategy_probs(seqs, 2, "bigram", alpha=10**400), "alpha"),
        (lambda: npar.random_network(4, 2, 3, scale=10**400), "scale"),
    ):
        with pytest.raises(InputError) as info:
            call()
        assert info.value.param == param
