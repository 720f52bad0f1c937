"""Exact claims of Edelman thesis Ch. 5 + App. B and Ch. 6 + App. C: Majority/Half spectra, Fourier gaps.

Spec: ``shared/spec/majority_parity.md`` (exact checks A1-A26, errata E1-E24). Predicted values come from
``theory.boolean`` (closed forms); observed values are independent brute force over {±1}^n through the
Walsh-Hadamard transform of ``numerics.walsh`` (exact integer/rational arithmetic).

Registered by ``verify/claims/__init__.py``. Ids start ``edelman-ch5-`` (Ch. 5, App. B) or ``edelman-ch6-`` (Ch. 6, App. C).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from numerics import walsh as nw
from theory import boolean as tb

from .base import Claim, Observation, RunContext, Verdict, judge_absolute, judge_refuted_if_differs, register

SRC = "Edelman thesis (2024)"


@dataclass(frozen=True)
class Grid:
    """(n, k) settings (or (n, k, s) for Lemma C.2) shared by the exact claims."""

    cases: tuple[tuple[int, ...], ...]


def _maj_values(n: int) -> list[int]:
    """Maj_n on the cube (tie -> -1), integer vector in the transform's order."""
    z = nw.linear_form(np.ones(n, dtype=np.int64))
    return [1 if v > 0 else -1 for v in z.tolist()]


def _half_values(m: int) -> list[int]:
    z = nw.linear_form(np.ones(m, dtype=np.int64))
    return [1 if v == 0 else 0 for v in z.tolist()]


def _coeffs_exact(values: list[int]) -> list[Fraction]:
    N = len(values)
    H = nw.fwht_int(np.asarray(values, dtype=np.int64))
    return [Fraction(int(h), N) for h in H]


def _judge_exact(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    pred, got = list(predicted), list(obs.value)
    if len(pred) != len(got):
        return "fail", f"length mismatch {len(pred)} vs {len(got)}"
    bad = [i for i, (a, b) in enumerate(zip(pred, got)) if Fraction(a) != Fraction(b)]
    if bad:
        i = bad[0]
        return "fail", f"{len(bad)} of {len(pred)} values differ; first at case {i}: {pred[i]} vs {got[i]}"
    return "pass", f"all {len(pred)} values equal exactly"


def _frac_list(xs) -> list[str]:
    return [str(x) for x in xs]


# ----------------------------------------------------------------------------------------- A1, A2


def _predict_majority(cfg: Grid) -> list[Fraction]:
    return [tb.majority_coefficient(n, k) for n, k in cfg.cases]


def _observe_majority(cfg: Grid, ctx: RunContext) -> Observation:
    cache: dict[int, list[Fraction]] = {}
    out = []
    for n, k in cfg.cases:
        if n not in cache:
            cache[n] = _coeffs_exact(_maj_values(n))
        out.append(cache[n][(1 << k) - 1])
    return Observation(out, details={"cases": [list(c) for c in cfg.cases], "values": _frac_list(out)})


def _maj_cases(ns) -> tuple[tuple[int, int], ...]:
    return tuple((n, k) for n in ns for k in range(n + 1))


register(
    Claim(
        id="edelman-ch5-lemB.1-majority-closed-form",
        source=f"{SRC}, Lemma B.1 (O'Donnell Thm 5.19); App. C.2.3 tie rule for even n",
        statement="Maj_n(k) = (-1)^((k-1)/2) C((n-1)/2,(k-1)/2)/C(n-1,k-1) 2^-(n-1) C(n-1,(n-1)/2) for odd n, odd k, "
        "0 for even k; even n (sign(0) = -1): Maj_{n+1}(k) for odd k, -Maj_{n+1}(k+1) for even k.",
        kind="symbolic",
        configs={"quick": Grid(_maj_cases(range(1, 14))), "full": Grid(_maj_cases(range(1, 19)))},
        predict=_predict_majority,
        observe=_observe_majority,
        judge=_judge_exact,
        tolerance="exact (Fractions ==)",
    )
)

# ----------------------------------------------------------------------------------------- A6 and E1


def _observe_exponent(cfg: Grid, ctx: RunContext) -> Observation:
    ((k1, k2),) = cfg.cases
    r1, r2 = float(tb.rho(k1)), float(tb.rho(k2))
    slope = math.log(r2 / r1) / math.log(k2 / k1)
    return Observation(
        slope,
        details={"k": [k1, k2], "rho": [r1, r2]},
        counterexample={"k": [k1, k2], "rho(k)": [r1, r2], "fitted_exponent": slope, "printed_exponent": -2 / 3},
    )


register(
    Claim(
        id="edelman-ch5-lemB.1-level-weight-exponent-as-printed",
        source=f"{SRC}, Lemma B.1 (erratum E1)",
        statement="As printed: c1^2 k^(-2/3) <= C(n,k) Maj_n(k)^2 <= c2^2 k^(-2/3), i.e. the level weight decays like k^(-2/3).",
        kind="symbolic",
        configs={"quick": Grid(((1001, 2001),)), "full": Grid(((10001, 20001),))},
        predict=lambda cfg: -2 / 3,
        observe=_observe_exponent,
        judge=judge_refuted_if_differs(1e-2),
        tolerance="absolute 1e-2 on the log-log slope of the exact limit rho(k)",
        refutes="c1^2 k^(-2/3) <= C(n,k) Maj_n(k)^2 <= c2^2 k^(-2/3)",
        corrected_by="edelman-ch5-lemB.1-level-weight-exponent",
    )
)


register(
    Claim(
        id="edelman-ch5-lemB.1-level-weight-exponent",
        source=f"{SRC}, Lemma B.1 corrected (O'Donnell Thm 5.22; spec A6)",
        statement="lim_n W^k[Maj_n] = rho(k) = (2/pi) C(k-1,(k-1)/2)/(k 2^(k-1)) ~ (2/pi)^(3/2) k^(-3/2): exponent -3/2.",
        kind="symbolic",
        configs={"quick": Grid(((1001, 2001),)), "full": Grid(((10001, 20001),))},
        predict=lambda cfg: -1.5,
        observe=_observe_exponent,
        judge=judge_absolute(1e-2),
        tolerance="absolute 1e-2 on the log-log slope",
    )
)

# ----------------------------------------------------------------------------------------- A9 and E4


def _predict_half(cfg: Grid) -> list[Fraction]:
    return [tb.half_coefficient(m, k) for m, k in cfg.cases]


def _observe_half(cfg: Grid, ctx: RunContext) -> Observation:
    cache: dict[int, list[Fraction]] = {}
    out = []
    for m, k in cfg.cases:
        if m not in cache:
            cache[m] = _coeffs_exact(_half_values(m))
        out.append(cache[m][(1 << k) - 1])
    return Observation(out, details={"cases": [list(c) for c in cfg.cases], "values": _frac_list(out)})


_HALF_Q = Grid(tuple((m, k) for m in range(2, 13, 2) for k in range(m + 1)))
_HALF_F = Grid(tuple((m, k) for m in range(2, 17, 2) for k in range(m + 1)))

register(
    Claim(
        id="edelman-ch6-lemC.12-half-closed-form",
        source=f"{SRC}, Lemma C.12 corrected (erratum E4)",
        statement="Half_m(T) = 0 for odd |T|, and (-1)^j C(m/2,j) C(m,m/2) / (C(m,2j) 2^m) = Maj_{m+1}(2j+1) for |T| = 2j.",
        kind="symbolic",
        configs={"quick": _HALF_Q, "full": _HALF_F},
        predict=_predict_half,
        observe=_observe_half,
        judge=_judge_exact,
        tolerance="exact (Fractions ==)",
    )
)


def _observe_half_printed(cfg: Grid, ctx: RunContext) -> Observation:
    ((m, k),) = cfg.cases
    got = _coeffs_exact(_half_values(m))[(1 << k) - 1]
    return Observation(
        got,
        counterexample={
            "m": m,
            "|T|": k,
            "printed": str(tb.half_coefficient_as_printed(m, k)),
            "brute_force": str(got),
            "corrected": str(tb.half_coefficient(m, k)),
        },
    )


register(
    Claim(
        id="edelman-ch6-lemC.12-half-as-printed",
        source=f"{SRC}, Lemma C.12 as printed (erratum E4)",
        statement="As printed: Half_{2m}(2j) = (-1)^j C(m,j) C(2m,m) / C(2m,2j) (no factor 2^(-2m)).",
        kind="symbolic",
        configs={"quick": Grid(((4, 0),)), "full": Grid(((8, 2),))},
        predict=lambda cfg: tb.half_coefficient_as_printed(*cfg.cases[0]),
        observe=_observe_half_printed,
        judge=judge_refuted_if_differs(1e-12),
        tolerance="exact (rational values compared; relative 1e-12)",
        refutes="Half_{2m}(2j) = (-1)^j C(m,j) C(2m,m) / C(2m,2j)",
        corrected_by="edelman-ch6-lemC.12-half-closed-form",
    )
)

# ----------------------------------------------------------------------------------------- A11, A12


def _observe_gap_bruteforce(cfg: Grid, ctx: RunContext) -> Observation:
    out = []
    for n, k in cfg.cases:
        c = _coeffs_exact(_maj_values(n))
        out.append(tb.fourier_gap(c, n, range(k)))
    return Observation(out, details={"cases": [list(c) for c in cfg.cases], "gaps": _frac_list(out)})


register(
    Claim(
        id="edelman-ch5-lemB.2-exact-gap",
        source=f"{SRC}, Definition 5.4 and Lemma B.2 (spec §1.5)",
        statement="For odd n and even k, the Fourier gap of Maj_n at a k-set (Def. 5.4, brute force) equals "
        "(n-2k+1)/(k-1) |Maj_n(k+1)|.",
        kind="symbolic",
        configs={
            "quick": Grid(((5, 2), (7, 2), (9, 2), (9, 4), (11, 2), (11, 4), (13, 4), (13, 6))),
            "full": Grid(((5, 2), (9, 2), (11, 4), (13, 6), (15, 2), (15, 4), (17, 4), (17, 8))),
        },
        predict=lambda cfg: [tb.majority_gap_closed_form(n, k) for n, k in cfg.cases],
        observe=_observe_gap_bruteforce,
        judge=_judge_exact,
        tolerance="exact (Fractions ==)",
    )
)


def _b2_cases(kmax: int, nmax: int, stride: int) -> tuple[tuple[int, int], ...]:
    return tuple((n, k) for k in range(2, kmax + 1, 2) for n in range(4 * k + 1, nmax + 1, 2 * stride))


def _observe_b2(cfg: Grid, ctx: RunContext) -> Observation:
    ratios = []
    worst = None
    for n, k in cfg.cases:
        g = tb.majority_gap(n, k)
        # exact: g >= 0.03 (n-1)^(-(k-1)/2)  <=>  g^2 (n-1)^(k-1) >= 9/10^4
        ok = g > 0 and g * g * (n - 1) ** (k - 1) >= Fraction(9, 10**4)
        r = float(g / tb.lemma_b2_bound(n, k))
        ratios.append(r)
        if not ok:
            worst = {"n": n, "k": k, "gap": str(g)}
    i = int(np.argmin(ratios))
    return Observation(
        min(ratios), details={"min_ratio_at": list(cfg.cases[i]), "n_cases": len(cfg.cases)}, counterexample=worst
    )


def _judge_b2(predicted: Any, obs: Observation, config: Any = None) -> tuple[Verdict, str]:
    if obs.counterexample is None and obs.value >= 1:
        return "pass", f"bound holds exactly on all cases; min gap/bound = {obs.value:.3f}"
    return "fail", f"bound violated: {obs.counterexample}"


register(
    Claim(
        id="edelman-ch5-lemB.2-gap-bound",
        source=f"{SRC}, Lemma B.2 with its hidden assumptions (k even, n odd; erratum E5)",
        statement="For even k, odd n >= 4k: |Maj_n(k-1)| - |Maj_n(k+1)| >= 0.03 (n-1)^(-(k-1)/2).",
        kind="symbolic",
        configs={"quick": Grid(_b2_cases(20, 1001, 5)), "full": Grid(_b2_cases(20, 4001, 1))},
        predict=lambda cfg: 1.0,
        observe=_observe_b2,
        judge=_judge_b2,
        tolerance="exact comparison (gap^2 (n-1)^(k-1) >= 9/10^4); value reported: min gap/bound",
    )
)


def _observe_b2_odd(cfg: Grid, ctx: RunContext) -> Observation:
    ((n, k),) = cfg.cases
    c = _coeffs_exact(_maj_values(n))
    g = tb.fourier_gap(c, n, range(k))
    bound = 0.03 * (n - 1) ** (-(k - 1) / 2)
    return Observation(float(g), counterexample={"n": n, "k": k, "gap_bruteforce": str(g), "bound_as_printed": bound})


register(
    Claim(
        id="edelman-ch5-lemB.2-gap-bound-as-printed",
        source=f"{SRC}, Lemma B.2 as printed (erratum E5)",
        statement="As printed: for any fixed k and n >= 4k, Majority has a 0.03 (n-1)^(-(k-1)/2) Fourier gap at any k-set.",
        kind="symbolic",
        configs={"quick": Grid(((13, 3),)), "full": Grid(((15, 3),))},
        predict=lambda cfg: 0.03 * (cfg.cases[0][0] - 1) ** (-(cfg.cases[0][1] - 1) / 2),
        observe=_observe_b2_odd,
        judge=lambda p, obs, cfg=None: (
            ("pass", "the printed bound holds at this point")
            if float(obs.value) >= float(p)
            else ("refuted", f"brute-force gap {float(obs.value):.6g} < printed bound {float(p):.6g}")
        ),
        tolerance="exact comparison: refuted when the brute-force gap (0 for odd k) is below the bound",
        refutes="Fix some k, n >= 4k: Majority has a gamma_k = 0.03 (n-1)^(-(k-1)/2) Fourier gap",
        corrected_by="edelman-ch5-lemB.2-gap-bound",
    )
)

# ----------------------------------------------------------------------------------------- A13 Lemma B.3


@dataclass(frozen=True)
class NeuronCases:
    cases: tuple[tuple[int, int], ...]
    draws: int = 3
    seed: int = 0


def _b3_draws(cfg: NeuronCases):
    rng = np.random.default_rng(cfg.seed)
    for n, k in cfg.cases:
        for _ in range(cfg.draws):
            w = rng.choice([-1, 1], n).tolist()
            b = Fraction(int(rng.integers(-99, 100)), 100)
            yield n, k, w, b


def _predict_b3(cfg: NeuronCases) -> list[Fraction]:
    out = []
    for n, k, w, b in _b3_draws(cfg):
        lo, hi = tb.majority_coefficient(n, k - 1), tb.majority_coefficient(n, k + 1)
        for j in range(n):
            if j < k:
                out.append(-lo / 2 * tb.character([i for i in range(k) if i != j], w))
            else:
                out.append(-hi / 2 * tb.character(list(range(k)) + [j], w))
        out.append(Fraction(0))  # bias gradient
    return out


def _observe_b3(cfg: NeuronCases, ctx: RunContext) -> Observation:
    out = []
    for n, k, w, b in _b3_draws(cfg):
        gw, gb = nw.population_gradient_exact(w, b, range(k))
        out.extend(gw)
        out.append(gb)
    return Observation(out, seeds=(cfg.seed,), details={"cases": [list(c) for c in cfg.cases], "draws": cfg.draws})


register(
    Claim(
        id="edelman-ch5-lemB.3-first-step-gradient",
        source=f"{SRC}, Lemma B.3 (App. B.2.1; the n >= 2(k+1)^2 condition is not needed)",
        statement="For odd n, even k, w in {+-1}^n, |b| < 1 and u = 1: E[grad_w] = -1/2 Maj_n(k-1) chi_{[k]\\{j}}(w) "
        "for j in [k], -1/2 Maj_n(k+1) chi_{[k]+{j}}(w) otherwise, and E[grad_b] = 0.",
        kind="symbolic",
        configs={
            "quick": NeuronCases(((9, 2), (11, 2), (11, 4), (13, 4))),
            "full": NeuronCases(((9, 2), (11, 4), (13, 2), (13, 4), (15, 4), (17, 6)), draws=5),
        },
        predict=_predict_b3,
        observe=_observe_b3,
        judge=_judge_exact,
        tolerance="exact (Fractions ==)",
    )
)

# ----------------------------------------------------------------------------------------- A20 Lemma C.2


def _observe_c2(cfg: Grid, ctx: RunContext) -> Observation:
    """Violations over the grid of (a) the corrected bound ((s-k+1)/n)^k everywhere and (b) the printed bound
    (s/2n)^k under the thesis's standing assumption 4k < s <= n (App. C.2.2); outside that assumption the
    printed bound can fail (smallest example found: n = 48, k = s = 11), which is recorded, not counted."""
    bad, outside = [], []
    for n, k, s in cfg.cases:
        # brute-force count of s-subsets of [n] containing [k] for small n, the binomial ratio beyond
        if n <= 12:
            import itertools

            subsets = list(itertools.combinations(range(n), s))
            p = Fraction(sum(1 for T in subsets if set(range(k)) <= set(T)), len(subsets))
        else:
            p = Fraction(math.comb(n - k, s - k), math.comb(n, s))
        ok = p >= tb.lemma_c2_corrected_bound(n, k, s)
        printed_ok = p >= tb.lemma_c2_bound_as_printed(n, k, s)
        if 4 * k < s:
            ok = ok and printed_ok
        elif not printed_ok:
            outside.append([n, k, s])
        if not ok:
            bad.append([n, k, s])
    return Observation(
        len(bad),
        details={
            "n_cases": len(cfg.cases),
            "violations": bad[:10],
            "printed_bound_fails_outside_4k<s": len(outside),
            "examples_outside_hypothesis": outside[:5],
        },
    )


register(
    Claim(
        id="edelman-ch6-lemC.2-support-bound",
        source=f"{SRC}, Lemma C.2 (App. C.2.2, standing assumption 4k < s <= n)",
        statement="P(S in supp(w)) = C(n-k,s-k)/C(n,s) >= (s/2n)^k for 4k < s <= n (the lemma as stated); more generally "
        ">= ((s-k+1)/n)^k for all k <= s <= n. Outside 4k < s the (s/2n)^k form can fail (e.g. n = 48, k = s = 11; the "
        "spec's check A20 over all k <= s <= n overlooks the hypothesis), which the record lists.",
        kind="symbolic",
        configs={
            "quick": Grid(tuple((n, k, s) for n in range(1, 41) for s in range(n + 1) for k in range(s + 1))),
            "full": Grid(tuple((n, k, s) for n in range(1, 121) for s in range(n + 1) for k in range(s + 1))),
        },
        predict=lambda cfg: 0,
        observe=_observe_c2,
        judge=lambda p, obs, cfg=None: (
            ("pass", "no violation")
            if obs.value == 0
            else ("fail", f"{obs.value} violations, e.g. {obs.details['violations'][:3]}")
        ),
        tolerance="exact (number of violations == 0)",
    )
)
