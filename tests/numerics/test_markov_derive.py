"""``derive_markov`` (the summary of ``tvk derive markov``) and the k = 2 strategy-KL quadrature of
numerics/markov_gradients.py: the class count by runs against theory's dynamic programme, the quadrature against
the exact sums, the derive output against the functions it summarises, and bad input (Edelman Ch. 8; docs/markov.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from numerics import markov_gradients as mg
from theory import markov as tm
from theory._checks import LimitError


@pytest.mark.parametrize("t", [2, 3, 6, 12, 25])
def test_classes_by_runs_equal_the_dynamic_programme(t: int) -> None:
    by_runs = {tuple(int(v) for v in row[:6]): int(row[6]) for row in mg.two_state_classes_by_runs(t)}
    assert by_runs == tm.transition_count_classes(t)
    assert sum(by_runs.values()) == 2**t


@pytest.mark.parametrize("t", [2, 9, 30])
def test_quadrature_equals_exact_sums(t: int) -> None:
    q = mg.two_state_strategy_kl_quadrature(t)
    assert q["total_probability"] == pytest.approx(1.0, abs=1e-13)
    for s in ("uniform", "unigram", "bigram"):
        assert q[s] == pytest.approx(float(tm.two_state_strategy_kl(t, s)), abs=1e-12)


def test_derive_k2_summarises_theory_and_quadrature() -> None:
    obj, text = mg.derive_markov(2, 10)
    json.dumps(obj)  # plain data
    kls = obj["strategy_kl"]
    for s in ("uniform", "unigram", "bigram"):
        assert kls[s]["method"] == "exact" and kls[s]["stderr"] is None
        assert kls[s]["value"] == float(tm.two_state_strategy_kl(10, s))
    assert kls["bigram_asymptotic"]["value"] == pytest.approx(0.1)
    g = obj["gradients"]
    exact = mg.finite_t_gradients(10)
    assert g["step1_finite_t"]["W_diag"] == exact.GW[0, 0] and g["step1_finite_t"]["v"]["2"] == exact.GV[1]
    assert g["step2_finite_t"]["G_I"]["3"] == exact.GI[2]
    assert g["K"]["2"]["exact"] == str(tm.K(2)) and g["argmax_K"] == 2
    assert g["cor_E2_v"]["1"]["float"] == float(tm.cor_e2_v_update(10, 1))
    assert "bigram" in text and "K_j" in text and "Cor. E.2" in text


def test_derive_k3_uses_monte_carlo_with_standard_errors() -> None:
    obj, text = mg.derive_markov(3, 4)
    for s in ("uniform", "unigram", "bigram"):
        e = obj["strategy_kl"][s]
        assert e["method"].startswith("Monte Carlo") and e["stderr"] > 0 and np.isfinite(e["value"])
    assert obj["gradients"] is None and "k = 2 only" in text
    # k(k-1)/(2t) = 3/4 at t = 4
    assert obj["strategy_kl"]["bigram_asymptotic"]["closed_form"] == "3/4"


@pytest.mark.parametrize(
    "k,t,exc,param",
    [
        (1, 10, ValueError, "k"),
        (2, 1, ValueError, "t"),
        (2.5, 10, ValueError, "k"),
        (True, 10, ValueError, "k"),
        (mg.MAX_DERIVE_K + 1, 10, LimitError, "k"),
        (2, mg.MAX_DERIVE_T + 1, LimitError, "t"),
    ],
)
def test_derive_bad_input(k: object, t: object, exc: type, param: str) -> None:
    with pytest.raises(exc) as info:
        mg.derive_markov(k, t)
    assert info.value.param == param and param in str(info.value)


@pytest.mark.parametrize("t", [2, 3])
def test_derive_at_the_shortest_contexts_reports_the_lags_they_have(t: int) -> None:
    """``tvk derive markov --t 2`` is the documented minimum: the coefficients are reported for the lags j <= t (a
    context of length 2 has no lag 3), each equal to the function it summarises."""
    g = mg.derive_markov(2, t)[0]["gradients"]
    lags = [str(j) for j in range(1, min(t, 3) + 1)]
    for table in (g["step1_leading"]["v"], g["step2_leading"]["G_I"], g["cor_E2_v"], g["E49_as_printed"]):
        assert list(table) == lags
    assert list(g["step1_finite_t"]["v"]) == list(g["step2_finite_t"]["G_I"]) == lags
    assert g["step2_leading"]["G_I"]["2"] == float(tm.step2_diag_leading(t, 2))
