"""Shi thesis Theorem 4.9 / C.22, Lemma C.16, Lemma 4.11 / C.18: the value gamma*(p, k), the identities behind
the explicit max-margin network, the network itself, and the erratum in its printed output."""

from __future__ import annotations

import sympy

from numerics.margins import evaluate
from numerics.modular import ModularTask, construction_network
from theory import modular as tm

from ..base import Claim, Erratum, Observation, RunContext, register
from ..judges import ExactlyEqual, MaxRel, RefutedIfDiffers, Requiring
from .common import SHI, SYMBOLIC_KS, CasesConfig, P, case_list, max_margins

# --- Theorem 4.9 (Shi thesis, Thm 4.9 / C.22) and Lemma C.15: the maximum margin gamma*(p, k)


def _predict_margin_formula(cfg: CasesConfig) -> list[sympy.Expr]:
    """gamma* for symbolic p at k = 1..6, then at every (p, k) case."""
    return [tm.max_margin(P, k) for k in SYMBOLIC_KS] + max_margins(cfg)


def _observe_margin_formula(cfg: CasesConfig, ctx: RunContext) -> Observation:
    """The end of the bound chain of Lemma C.15 (symbolic p), then the construction's exact normalized margin."""
    values = [tm.single_neuron_bound(P, k) for k in SYMBOLIC_KS]
    values += [tm.construction(p, k).normalized_margin for p, k in cfg.cases]
    return Observation(values, details={"symbolic_k": list(SYMBOLIC_KS), "construction_cases": case_list(cfg)})


register(
    Claim(
        id="shi-thm4.9-margin",
        source=f"{SHI}, Theorem 4.9 / C.22 and Lemma C.15",
        statement="gamma* = 2 k! / ((2k+2)^((k+1)/2) (p-1) p^((k-1)/2)) equals the single-neuron bound of Lemma C.15 "
        "(symbolic p, k = 1..6) and the exact normalized margin of the Lemma 4.11 construction.",
        kind="symbolic",
        configs={
            "quick": CasesConfig(((3, 2), (5, 2), (7, 2), (5, 3), (3, 4))),
            "full": CasesConfig(
                ((3, 2), (5, 2), (7, 2), (11, 2), (5, 3), (7, 3), (3, 4), (5, 4), (5, 5), (47, 4), (97, 3), (23, 5))
            ),
        },
        predict=_predict_margin_formula,
        observe=_observe_margin_formula,
        judge=ExactlyEqual(),
    )
)

# --- Lemma C.16 (Part 3) and Eq. C.21 (Shi thesis): the identities behind the construction


def _trig_as_polynomial(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every cos(x_i), sin(x_i) replaced by a symbol c_i, s_i: both sides of Eq. C.21, once
    expanded, are polynomials in these (exact, and much faster to compare than trigonometric sums)."""
    names = {sympy.cos: "c", sympy.sin: "s"}
    return expr.xreplace({f: sympy.Symbol(f"{names[f.func]}_{f.args[0]}") for f in expr.atoms(sympy.cos, sympy.sin)})


def _predict_identities(cfg: CasesConfig) -> list[sympy.Expr]:
    """Per k: 2^(k-1) k! prod d_i (Lemma C.16) and the 2^k-term product sum of Eq. C.21."""
    out = []
    for k in SYMBOLIC_KS:
        out += [tm.polarization_identity(k)[0], _trig_as_polynomial(sympy.expand(tm.cos_sum_expansion(k)[1]))]
    return out


def _observe_identities(cfg: CasesConfig, ctx: RunContext) -> Observation:
    """Per k: the signed sum of k-th powers expanded, and cos(x_1 + ... + x_{k+1}) expanded by sympy."""
    out = []
    for k in SYMBOLIC_KS:
        out += [
            sympy.expand(tm.polarization_identity(k)[1]),
            _trig_as_polynomial(sympy.expand(sympy.expand_trig(tm.cos_sum_expansion(k)[0]))),
        ]
    return Observation(out, details={"k": list(SYMBOLIC_KS)})


register(
    Claim(
        id="shi-lemC.16-polarization",
        source=f"{SHI}, Lemma C.16 (Part 3) and Eq. C.21",
        statement="2^(k-1) k! prod d_i = sum over eps in {+-1}^k, eps_1 = 1 of (-1)^#neg (sum eps_j d_j)^k, and "
        "cos(x_1+...+x_{k+1}) expands into 2^k products over even-weight b; k = 1..6.",
        kind="symbolic",
        configs={"quick": CasesConfig(()), "full": CasesConfig(())},
        predict=_predict_identities,
        observe=_observe_identities,
        judge=ExactlyEqual(),
    )
)

# --- Lemma 4.11 / C.18 (Shi thesis): the explicit max-margin network


def _observe_construction(cfg: CasesConfig, ctx: RunContext) -> Observation:
    """Normalized margin of the construction over all p^k inputs, and how far it is from all points on the
    margin with equal wrong logits (Condition 4.8)."""
    values, spreads, spans = [], [], []
    for p, k in cfg.cases:
        rep = evaluate(construction_network(p, k), ModularTask(p, k))
        values.append(rep.normalized_margin)
        spreads.append(rep.wrong_logit_spread / rep.min_margin)
        spans.append((rep.max_margin - rep.min_margin) / rep.min_margin)
    return Observation(
        values,
        details={
            "cases": case_list(cfg),
            "width": [tm.min_width(p, k) for p, k in cfg.cases],
            "wrong_logit_spread_rel": spreads,
            "margin_span_rel": spans,
        },
    )


def _small_cases(limit: float, cost: float) -> tuple[tuple[int, int], ...]:
    """(p, k) with p^(k+1) <= limit and m p^k <= cost (the tests sweep every p^(k+1) <= 2e6 under `slow`)."""
    return tuple(
        (p, k)
        for k in range(1, 8)
        for p in range(3, 200, 2)
        if p ** (k + 1) <= limit and tm.min_width(p, k) * p**k <= cost
    )


register(
    Claim(
        id="shi-lem4.11-construction",
        source=f"{SHI}, Lemma 4.11 / C.18 (construction as corrected in docs/modular.md)",
        statement="The explicit network with 2^(2k-2)(p-1) single-frequency neurons has normalized margin gamma*(p,k), "
        "every point on the margin and all incorrect logits equal (Condition 4.8).",
        kind="numeric",
        configs={"quick": CasesConfig(_small_cases(3e4, 1e7)), "full": CasesConfig(_small_cases(2e6, 3e8))},
        predict=max_margins,
        observe=_observe_construction,
        judge=Requiring(MaxRel(1e-12), at_most=(("wrong_logit_spread_rel", 1e-12), ("margin_span_rel", 1e-12))),
    )
)

# --- Lemma C.17/C.18 (Shi thesis), final display: the construction's output as printed (erratum)


def _predict_output_printed(cfg: CasesConfig) -> sympy.Expr:
    """The printed value at a wrong label: "0 otherwise"."""
    p, k = cfg.cases[0]
    return tm.construction_logit_as_printed(p, [0] * k, 1)


def _observe_output_printed(cfg: CasesConfig, ctx: RunContext) -> Observation:
    """The construction's logit at the first input a = 0 and the wrong label c = 1."""
    p, k = cfg.cases[0]
    inputs, labels = ModularTask(p, k).batch(0, 1)
    a, c = inputs[0].tolist(), int((labels[0] + 1) % p)
    value = float(construction_network(p, k).logits(inputs)[0, c])
    return Observation(
        value,
        counterexample={
            "p": p,
            "k": k,
            "a": a,
            "c": c,
            "printed": tm.construction_logit_as_printed(p, a, c),
            "observed": value,
            "corrected": tm.construction(p, k).logit(a, c),
        },
    )


register(
    Claim(
        id="shi-lemC.18-output-as-printed",
        source=f"{SHI}, Lemma C.17/C.18 final display",
        statement="As printed: the construction outputs (p-1)/2 if a_1+...+a_k = c and 0 otherwise.",
        kind="numeric",
        configs={"quick": CasesConfig(((5, 2),)), "full": CasesConfig(((7, 3),))},
        predict=_predict_output_printed,
        observe=_observe_output_printed,
        judge=RefutedIfDiffers(1e-9),
        refutes="f = (p-1)/2 if sum a = c, 0 otherwise",
        corrected_by="shi-lem4.11-construction",
        erratum=Erratum(
            "substantive",
            "When we include such 2^k . 2^{k-1} neurons for all frequencies zeta in {1, ..., (p-1)/2}, we have "
            "the network will calculate the following function f(a_1, ..., a_k, c) = sum_{zeta=1}^{(p-1)/2} "
            "cos_zeta(sum_{i=1}^k a_i - c) = sum_{zeta=1}^{p-1} 1/2 . exp(2 pi i zeta (sum_{i=1}^k a_i - c)/p) = "
            "{ (p-1)/2 if sum_{i=1}^k a_i = c; 0 otherwise }",
            "Shi thesis (2024), App. C.7.3 (pp. 400-403 in the table of contents), proof of Lemma C.18, final "
            "display; the k = 3 display at the end of the proof of Lemma C.17 (App. C.7.2) prints the same cases",
        ),
    )
)
