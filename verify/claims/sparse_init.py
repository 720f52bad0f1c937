"""The epsilon-perturbed s-sparse neuron of Edelman thesis Ch. 6 (Lemmas C.13-C.15, Theorem C.16 = Thm 6.5,
App. C.2.4): a ReLU neuron with weight 1 on an s-subset S' of the parity support S and a small eps elsewhere
has a population gradient that separates S \\ S' from the coordinates outside S by the factor (n-k)/(k-s-1).

Predicted values come from :mod:`theory.sparse_init` (exact); observations from the float64 and the exact integer
Walsh-Hadamard transforms of :mod:`numerics.polynet`. The erratum (the printed ratio (n-s)/(k-s-1)) is explained
in ``docs/boolean.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from numerics import polynet as npn
from theory import sparse_init as tsi

from .base import Claim, Erratum, Observation, RunContext, register
from .judges import MaxAbs, MaxRel, RefutedIfDiffers, Requiring

SRC = "Edelman thesis (2024)"


@dataclass(frozen=True)
class SparseNeuronConfig:
    """(n, k, s) cases; with ``with_biases`` the gradient is also measured at every Thm C.16 bias."""

    cases: tuple[tuple[int, int, int], ...] = ((13, 4, 2), (15, 4, 2), (15, 6, 2), (15, 6, 4))
    with_biases: bool = True


# --- Lemmas C.13-C.15 (Edelman thesis, App. C.2.4): the gradient of a good perturbed neuron


def _predict_gradient(cfg: SparseNeuronConfig) -> list[float]:
    """Lemma C.15's correlations per coordinate, once for b = 0 and once per Thm C.16 bias."""
    out = []
    for n, k, s in cfg.cases:
        g = [float(x) for x in tsi.good_neuron_correlations(n, k, s)]
        repeats = 1 + (len(tsi.bias_grid(k, tsi.perturbation_epsilon(n, k, s))) if cfg.with_biases else 0)
        out += g * repeats
    return out


def _observe_gradient(cfg: SparseNeuronConfig, ctx: RunContext) -> Observation:
    """E[ReLU'(w.x + b) x_i chi_S(x)] by the float64 transform at b = 0 and at every Thm C.16 bias; whether the
    exact integer transform at b = 0 equals Lemma C.15."""
    out, per_case = [], []
    for n, k, s in cfg.cases:
        eps = tsi.perturbation_epsilon(n, k, s)
        g = npn.perturbed_neuron_correlation(n, k, s, float(eps))
        out += g.tolist()
        if cfg.with_biases:
            for b in tsi.bias_grid(k, eps):
                out += npn.perturbed_neuron_correlation(n, k, s, float(eps), float(b)).tolist()
        exact = npn.perturbed_neuron_correlation_exact(n, k, s, eps)
        per_case.append(
            {
                "n": n,
                "k": k,
                "s": s,
                "eps": str(eps),
                "i_in_S'": float(g[0]) if s else None,
                "i_in_S-S'": float(g[s]),
                "i_notin_S": float(g[k]),
                "exact_equals_lemma_C15": exact == tsi.good_neuron_correlations(n, k, s),
            }
        )
    return Observation(
        out,
        details={
            "per_case": per_case,
            "exact_transform_equals_lemma": all(c["exact_equals_lemma_C15"] for c in per_case),
            "neuron": "ReLU(<w,x> + b), w = 1 on S' = {0..s-1}, eps elsewhere; S = {0..k-1}; value = "
            "E[ReLU'(w.x+b) x_i chi_S(x)] (= -loss gradient), at b = 0 then at each Thm C.16 bias",
        },
    )


register(
    Claim(
        id="edelman-ch6-lemC.13-perturbed-neuron-gradient",
        source=f"{SRC}, Lemmas C.13-C.15 (App. C.2.4; n-s odd, docs/boolean.md)",
        statement="For h(x) = ReLU(<w,x>) with w = 1 on an s-set S' subset of S and eps < 1/C(n-s,k) elsewhere (k, s "
        "even, s < k, n-s odd): E[d h/d w_i chi_S] = 0 for i in S', 1/2 Half_s([s]) Maj_{n-s}(k-s-1) for i in S\\S', "
        "1/2 Half_s([s]) Maj_{n-s}(k-s+1) for i not in S; (13,4,2): 0 (i in S'), -0.0615234 (i in S\\S'), "
        "+0.00683594 (i not in S). The Thm C.16 biases "
        "(|b| < eps/2) do not change it; the exact integer transform equals the lemma.",
        kind="symbolic",
        configs={
            "quick": SparseNeuronConfig(),
            "full": SparseNeuronConfig(
                cases=(
                    (13, 4, 2),
                    (15, 4, 2),
                    (15, 6, 2),
                    (15, 6, 4),
                    (17, 4, 2),
                    (17, 6, 4),
                    (19, 8, 2),
                    (19, 8, 6),
                    (13, 4, 0),
                )
            ),
        },
        predict=_predict_gradient,
        observe=_observe_gradient,
        judge=Requiring(MaxAbs(1e-9), ("exact_transform_equals_lemma",)),
    )
)


# --- Theorem C.16 (Edelman thesis, App. C.2.4): the separation ratio


def _observe_ratio(cfg: SparseNeuronConfig, ctx: RunContext) -> Observation:
    """|xi_{S-S'}| / |xi_{[n]-S}| from the float64 transform, with the corrected and printed ratios alongside."""
    out, per = [], []
    for n, k, s in cfg.cases:
        g = npn.perturbed_neuron_correlation(n, k, s, float(tsi.perturbation_epsilon(n, k, s)))
        r = abs(g[s]) / abs(g[k])
        out.append(r)
        per.append(
            {
                "n": n,
                "k": k,
                "s": s,
                "bruteforce_ratio": r,
                "corrected (n-k)/(k-s-1)": str(tsi.thm_c16_ratio(n, k, s)),
                "printed (n-s)/(k-s-1)": str(tsi.thm_c16_ratio_as_printed(n, k, s)),
            }
        )
    return Observation(out, details={"per_case": per}, counterexample={"cases": per})


_RATIO_QUICK = SparseNeuronConfig(with_biases=False)

register(
    Claim(
        id="edelman-ch6-thmC.16-ratio",
        source=f"{SRC}, proof of Thm C.16 corrected (docs/boolean.md, errata)",
        statement="|xi_{S\\S'}| / |xi_{[n]\\S}| = (n-k)/(k-s-1) for a good eps-perturbed s-sparse neuron (odd n-s); "
        "(13,4,2): 9, (15,4,2): 11, (15,6,2): 3, (15,6,4): 9.",
        kind="symbolic",
        configs={
            "quick": _RATIO_QUICK,
            "full": SparseNeuronConfig(
                cases=((13, 4, 2), (15, 4, 2), (15, 6, 2), (15, 6, 4), (17, 4, 2), (19, 8, 2)), with_biases=False
            ),
        },
        predict=lambda cfg: [tsi.thm_c16_ratio(n, k, s) for n, k, s in cfg.cases],
        observe=_observe_ratio,
        judge=MaxRel(1e-9),
    )
)

register(
    Claim(
        id="edelman-ch6-thmC.16-ratio-as-printed",
        source=f"{SRC}, proof of Thm C.16 as printed (docs/boolean.md, errata)",
        statement="As printed: |xi_{S\\S'}| / |xi_{[n]\\S}| = (n-s)/(k-s-1).",
        kind="symbolic",
        configs={"quick": _RATIO_QUICK, "full": _RATIO_QUICK},
        predict=lambda cfg: [tsi.thm_c16_ratio_as_printed(n, k, s) for n, k, s in cfg.cases],
        observe=_observe_ratio,
        judge=RefutedIfDiffers(1e-9),
        refutes="|xi_{S\\S'}| / |xi_{[n]\\S}| = (n-s)/(k-s-1) > 1",
        corrected_by="edelman-ch6-thmC.16-ratio",
        erratum=Erratum(
            "substantive",
            "Then using Lemma C.15 and Lemma C.12, we have |xi_{S \\ S'}| / |xi_{[n] \\ S}| = (n-s)/(k-s-1) > 1.",
            "Edelman thesis (2024), App. C.2.3 (App. C.2, pp. 257-283 in the table of contents), proof of Theorem C.16",
        ),
    )
)
