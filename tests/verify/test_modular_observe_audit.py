"""Audit of what the modular-addition claims measure (verify/claims/modular/margin.py, optimality.py,
edelman_k2.py): the observations must not be copies of the prediction's formula, must cover every neuron and every
kind of candidate network, and the printed-form residual must admit exactly the phases 0 and (k - 1) pi.

Oracles: deliberately wrong closed forms (a claim comparing a formula with itself cannot notice them), networks
deformed off the optimum with :func:`numerics.modular.deformed_neuron`, and Theorem 4.9's statement (beta < 0 moves
every one of the k blocks' phases by pi, i.e. the sum of the k input phases against the output phase by (k - 1) pi).
"""

from __future__ import annotations

import numpy as np
import pytest

from numerics.margins import HomogeneousNetwork
from numerics.modular import construction_network, deformed_neuron
from theory import modular as tm
from verify.claims import RunContext, registry
from verify.claims.modular import margin, optimality
from verify.claims.modular.common import CasesConfig, PrimesConfig


def _verdict(cid: str, cfg) -> str:
    claim = registry()[cid]
    return claim.judge(claim.predict(cfg), claim.observe(cfg, RunContext()), cfg)[0]


def test_thm77_margin_observation_is_not_morwanis_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    """edelman-thm7.7-margin compares Morwani's k = 2 formula with Shi's general-k formula: a wrong Morwani formula
    (twice the value) must fail, which it cannot if the observation reuses the predicted formula."""
    cfg = PrimesConfig(())
    assert _verdict("edelman-thm7.7-margin", cfg) == "pass"
    original = tm.max_margin_k2_morwani
    monkeypatch.setattr(tm, "max_margin_k2_morwani", lambda p: 2 * original(p))
    assert _verdict("edelman-thm7.7-margin", cfg) == "fail"


def test_thm49_margin_observation_is_the_single_neuron_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """shi-thm4.9-margin compares gamma*'s closed form with Lemma C.15's single-neuron bound (symbolic p): a wrong
    closed form (1.01 times the value) must fail."""
    cfg = CasesConfig(())
    assert _verdict("shi-thm4.9-margin", cfg) == "pass"
    original = tm.max_margin
    monkeypatch.setattr(tm, "max_margin", lambda p, k: original(p, k) * 101 / 100)
    assert _verdict("shi-thm4.9-margin", cfg) == "fail"


def _with_deformed_neuron(p: int, k: int, **kw) -> HomogeneousNetwork:
    """The construction plus one small neuron deformed off the optimum."""
    extra = deformed_neuron(p, k, 1, np.zeros(k), **kw).scaled(0.3)
    return HomogeneousNetwork.concatenate([construction_network(p, k), extra])


def test_construction_check_sees_a_margin_that_is_not_attained_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """Condition 4.8: every point on the margin and all wrong logits equal. A construction with one extra deformed
    neuron breaks both, so ``wrong_logit_spread_rel`` and ``margin_span_rel`` must be far above 1e-12 and the
    claim must fail."""
    monkeypatch.setattr(margin, "construction_network", lambda p, k: _with_deformed_neuron(p, k, mismatch=0.5))
    cfg = CasesConfig(((5, 2),))
    obs = margin._observe_construction(cfg, RunContext())
    assert obs.details["wrong_logit_spread_rel"][0] > 1e-6
    assert obs.details["margin_span_rel"][0] > 1e-6
    assert _verdict("shi-lem4.11-construction", cfg) == "fail"


@pytest.mark.parametrize("k", [2, 3])
def test_printed_form_residual_admits_exactly_0_and_k_minus_1_pi(k: int) -> None:
    """Theorem 4.9's printed form with beta in R: the residual is 0 (beta > 0) or (k - 1) pi (beta < 0, each of
    the k - 1 + 1 blocks' phases moved by pi) modulo 2 pi; pi/2 and 0.3 are neither."""
    res = optimality._printed_form_residual(np.array([0.0, (k - 1) * np.pi, -(k - 1) * np.pi, np.pi / 2, 0.3]), k)
    assert res[:3] == pytest.approx([0, 0, 0], abs=1e-12)
    assert res[3] == pytest.approx(np.pi / 2)
    assert res[4] == pytest.approx(0.3)


def test_beta_sign_diagnostics_cover_every_neuron(monkeypatch: pytest.MonkeyPatch) -> None:
    """The printed form is about every neuron: one neuron with output-phase mismatch 0.2 and half its norm on a
    second frequency must show in the largest printed-form residual (0.2) and in 1 - min purity (> 0.1)."""
    monkeypatch.setattr(
        optimality,
        "construction_network",
        lambda p, k: _with_deformed_neuron(p, k, mismatch=0.2, second_zeta=2, split=0.5),
    )
    obs = optimality._observe_neuron_form(CasesConfig(((5, 2),)), RunContext())
    assert obs.details["printed_form_residual"][0] > 0.1
    assert obs.details["one_minus_purity"][0] > 0.1


def test_upper_bound_observes_the_best_network_of_any_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The observed value is the best normalized margin over all candidates: the construction itself, among random
    networks, must make it gamma*(p, k) (and not the random networks' much lower best)."""
    p, k = 5, 2
    monkeypatch.setattr(
        optimality,
        "_candidate_networks",
        lambda p_, k_, cfg, rng: [
            ("gaussian", optimality.random_network(p_, k_, 3, rng)),
            ("construction", construction_network(p_, k_)),
        ],
    )
    obs = optimality._observe_upper_bound(optimality.UpperBoundConfig(((p, k),)), RunContext())
    assert obs.value[0] == pytest.approx(float(tm.max_margin(p, k)), rel=1e-9)


def test_upper_bound_judges_a_single_neuron_by_its_class_weighted_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """A single optimal neuron (Lemma C.15's equality case) has class-weighted margin gamma* although its plain
    margin is far lower (one neuron cannot separate p classes); the bound check must read the class-weighted one
    for it, so the best ratio is 1."""
    p, k = 5, 2
    monkeypatch.setattr(
        optimality, "_candidate_networks", lambda p_, k_, cfg, rng: [("deformed neuron", deformed_neuron(p_, k_))]
    )
    obs = optimality._observe_upper_bound(optimality.UpperBoundConfig(((p, k),)), RunContext())
    assert obs.details["per_case"][0]["best_ratio"] == pytest.approx(1.0, rel=1e-9)
