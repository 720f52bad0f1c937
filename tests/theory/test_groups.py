"""Exact tests of ``theory.groups`` (Edelman thesis Theorem 7.9, Lemmas D.11-D.16, App. D.9.2, Table D.1).

Expected values come from independent routes: brute-force exact evaluation of the construction's logits,
a second closed form, the exact game on a support against the closed form, and the thesis's printed values
against the corrected ones (``docs/groups.md``). Comparisons are exact (``theory.finite_groups.is_zero``).
"""

from __future__ import annotations

import itertools

import pytest
from sympy import Rational, sqrt

from theory import finite_groups as fg
from theory import groups as tg

TOTALLY_REAL = ["S3", "S4", "S5", "D4", "D5", "D6", "Z2^2", "Z2^3", "A5", "S3xZ2"]
CONDITION_HOLDS = ["S3", "S4", "S5", "D3", "D4", "D5", "D6", "D7", "D8", "D10", "Z2^2", "Z2^3", "S3xZ2"]
CONDITION_FAILS = ["A5", "S6"]


# ------------------------------------------------------------------------------------------
# Thm 7.9: condition, tau, kappa, closed form
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CONDITION_HOLDS)
def test_condition_holds(name):
    assert tg.condition_holds(name)


@pytest.mark.parametrize("name", CONDITION_FAILS)
def test_condition_fails(name):
    assert not tg.condition_holds(name)


def test_condition_values_s6_exact():
    ct = fg.character_table("S6")
    vals = tg.condition_values("S6")
    positive = sorted(float(v) for v in vals[1:] if float(v) > 0)
    assert len(positive) == 2 and abs(positive[1] - 11) < 1e-12 and fg.is_zero(max(vals[1:], key=float) - 11)
    assert ct.group.order == 720


@pytest.mark.parametrize("name", [*TOTALLY_REAL, "S6"])
def test_tau_sums_to_one_and_kappa_constant(name):
    ct = fg.character_table(name)
    t = tg.tau(name)
    assert fg.is_zero(sum(n * x for n, x in zip(ct.class_sizes, t)) - 1)
    S = tg.s_sum(name)
    k = tg.kappa(name)
    for r in range(1, ct.n_irreps):
        assert fg.is_zero(k[r] / sqrt(ct.dims[r]) - ct.group.order / S)
    assert (all(float(x) > 0 for x in t[1:])) == tg.condition_holds(name)


def test_closed_form_second_route_s3():
    # gamma* = 2/(3 sqrt(3|G|) S), S = 1 + 2^2.5 for S3, computed by hand
    assert fg.is_zero(tg.max_margin("S3") - 2 / (3 * sqrt(18) * (1 + 4 * sqrt(2))))
    assert tg.min_width("S3") == 18 and tg.min_width("S4") == 126 and tg.min_width("S5") == 1190


@pytest.mark.parametrize("name", ["S3", "S4", "D4", "D5", "Z2^3", "S3xZ2"])
def test_single_neuron_max_under_tau_equals_closed_form(name):
    assert fg.is_zero(tg.single_neuron_max(name) - tg.max_margin(name))


@pytest.mark.parametrize("name", ["S3", "S4", "D4", "D5", "Z2^3"])
def test_construction_reaches_closed_form_exactly(name):
    con = tg.construction(name)
    assert fg.is_zero(con.norm_power - 1)
    assert con.n_active == tg.min_width(name) == con.width
    margins = con.class_margins()[1:]
    assert all(fg.is_zero(m - margins[0]) for m in margins)  # every point on the margin
    assert fg.is_zero(con.normalized_margin - tg.max_margin(name))


def test_construction_logits_brute_force_s3():
    G = fg.group("S3")
    con = tg.construction(G)
    S, N = tg.s_sum(G), G.order
    unit = 2 / (S * (3 * N) ** Rational(3, 2))
    for a, b, c in itertools.product(range(N), repeat=3):
        expected = unit * (N - 1) if G.table[a][b] == c else -unit
        assert fg.is_zero(con.logit(a, b, c) - expected)


def test_game_value_on_support_matches_closed_form():
    ct = fg.character_table("S4")
    full = list(range(1, ct.n_irreps))
    g, _budgets, taus = tg.game_value_on_support("S4", full, list(range(1, len(ct.classes))))
    assert fg.is_zero(g - tg.max_margin("S4"))
    assert all(fg.is_zero(x - y) for x, y in zip(taus[1:], tg.tau("S4")[1:]))
    with pytest.raises(ValueError):
        tg.game_value_on_support("S4", [1], [1])  # sign irrep alone is not optimal


def test_construction_with_lp_budgets_exact_a5():
    # the support of the A5 game (3,3,4-dim irreps; 3 of 4 classes) solved exactly, then the
    # construction with these budgets has exactly this margin (lower bound) and the single-neuron
    # maximum under the dual tau (Lemma D.13, upper bound) is the same number.
    ct = fg.character_table("A5")
    irreps = [r for r in range(1, ct.n_irreps) if ct.dims[r] < 5]
    best = None
    for classes in itertools.combinations(range(1, 5), 3):
        try:
            best = tg.game_value_on_support("A5", irreps, classes)
        except ValueError:
            continue
    assert best is not None
    g, budgets, taus = best
    con = tg.construction("A5", budgets=budgets)
    assert fg.is_zero(con.normalized_margin - g)
    assert fg.is_zero(tg.single_neuron_max("A5", taus) - g)
    assert float(g) > float(2 / (3 * sqrt(180) * tg.s_sum("A5")))  # the invalid closed form is lower


# ------------------------------------------------------------------------------------------
# Errors and errata
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, match",
    [
        ("A5", "condition.*fails.*LP"),
        ("S6", "condition.*fails"),
        ("Z5", "real.*indicator"),
        ("A4", "real"),
        ("Q8", "indicator -1"),
    ],
)
def test_closed_form_refuses_outside_hypotheses(name, match):
    with pytest.raises(ValueError, match=match):
        tg.max_margin(name)


def test_construction_width_and_budget_errors():
    with pytest.raises(ValueError, match="below the construction"):
        tg.construction("S3", width=17)
    assert tg.construction("S3", width=30).width == 30
    with pytest.raises(ValueError, match="sum to 1"):
        tg.construction("S3", budgets=[0, Rational(1, 2), Rational(1, 4)])
    with pytest.raises(ValueError, match="condition"):
        tg.construction("A5")
    with pytest.raises(ValueError, match="nontrivial"):
        tg.optimal_neuron_scale("S3", 0)


def test_lemma_d13_as_printed_is_half():
    for name in ["S3", "S4"]:
        assert fg.is_zero(2 * tg.single_neuron_max_as_printed(name) - tg.max_margin(name))
    assert tg.LEMMA_D11_FACTOR == 2 * tg.LEMMA_D11_FACTOR_AS_PRINTED


def test_lemma_d15_coefficient_as_printed_gives_wrong_norm():
    G = fg.group("S4")
    ct = fg.character_table(G)
    for r in range(1, ct.n_irreps):
        # exact norm of the printed neuron u = R_ij / sqrt(3|G|) (same for v, w): sum_g R_ij(g)^2 = |G|/d (Lemma D.10)
        norm = tg.lemma_d15_neuron_norm_as_printed(G, r)
        assert fg.is_zero(norm - 1 / sqrt(ct.dims[r]))
        assert fg.is_zero(tg.optimal_neuron_scale(G, r) * sqrt(3 * G.order) - sqrt(ct.dims[r]))


def test_table_d1_labels_swapped():
    printed, corrected = tg.TABLE_D1_AS_PRINTED, tg.table_d1_corrected()
    assert printed["standard"] == corrected["standard⊗sign"] and printed["standard⊗sign"] == corrected["standard"]
    assert printed["standard"] != corrected["standard"] and corrected["standard"][1] == 2
    assert all(printed[k] == corrected[k] for k in printed if not k.startswith("standard"))
    assert sorted(printed.values()) == sorted(corrected.values())


@pytest.mark.parametrize("name", ["S3", "D4", "Z2^3", "S3xZ2"])
def test_plancherel_norm_matches_synthesised_weights(name):
    """Lemma D.12 against u = sum_R sum_ij alpha_R[i, j] R(g)[i, j] built from the float64 real irreps."""
    import numpy as np

    from numerics.groups import real_irreps

    ct = fg.character_table(name)
    alphas = [[[Rational(i - j + r, 3) for j in range(d)] for i in range(d)] for r, d in enumerate(ct.dims)]
    irreps = real_irreps(name)
    u = sum(np.einsum("ij,gij->g", np.array(a, dtype=float), R) for a, R in zip(alphas, irreps))
    assert abs(float(np.sum(u**2)) - float(tg.plancherel_norm(name, alphas))) < 1e-9
    with pytest.raises(ValueError):
        tg.plancherel_norm(name, alphas[:-1])
    with pytest.raises(ValueError):
        tg.plancherel_norm("Z3", [[[1]]] * 3)  # complex irreps
