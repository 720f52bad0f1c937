"""Edelman thesis Ch. 8 + App. E (in-context learning of Markov chains): the exact and numeric claims.

The task and its k = 2 closed forms (Eq. (E.15)), the Dirichlet posterior (8.1)-(8.3) and its erratum, the strategy
KLs at the last token (App. E.2), the integrals and finite-t gradients of Lemma 8.4 / E.1 with the erratum of (E.43),
Cor. E.2 with the erratum of (E.49), Fact 8.3 and Prop. 8.2. Predictions come from ``theory/markov.py``; the
observations from ``numerics/markov_gradients.py`` (quadrature, matrix powers, forward passes) and
``numerics/markov.py`` (sampled chains). Derivations and errata: ``docs/markov.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy
from scipy import integrate

from numerics import markov as nm
from numerics import markov_gradients as mg
from theory import markov as tm

from ..base import Claim, Erratum, Observation, PostHoc, Resolution, RunContext, register
from ..judges import (
    MC_Z,
    PERTURB_REL,
    PERTURB_TOLS,
    ExactlyEqual,
    Judge,
    MaxAbs,
    MaxRel,
    RefutedIfDiffers,
    Requiring,
    Verdict,
    ZScore,
    as_floats,
)

EDELMAN = "Edelman thesis"
#: "Exact" numerical agreement (quadrature against sympy).
QUAD_ATOL = 1e-9


# --- Eq. (E.15): the k = 2 chain in closed form


@dataclass(frozen=True)
class PowersConfig:
    """Exponents n at which ``P^n`` is compared (symbolic a, b)."""

    ns: tuple[int, ...]


def _predict_powers(cfg: PowersConfig) -> list[sympy.Expr]:
    """``1 pi + lambda^n (I - 1 pi)`` entry by entry, then the printed entry form of (E.15)."""
    out = [e for n in cfg.ns for e in tm.matrix_power_closed_form(n)]
    return out + [e for n in cfg.ns for e in tm.matrix_power_entry_form(n)]


def _observe_powers(cfg: PowersConfig, ctx: RunContext) -> Observation:
    """``P^n`` by repeated multiplication (sympy), twice; and ``pi P = pi``, ``pi 1 = 1``."""
    P = tm.transition_matrix()
    powers = [e for n in cfg.ns for e in P**n]
    pi = tm.stationary_law()
    stationary = sympy.simplify(pi * P - pi) == sympy.zeros(1, 2) and sympy.simplify(sum(pi) - 1) == 0
    return Observation(powers + powers, details={"ns": list(cfg.ns), "pi_is_stationary": bool(stationary)})


register(
    Claim(
        id="edelman-ch8-E.15-matrix-powers",
        source=f"{EDELMAN}, App. E.1, Eqs. (E.1), (E.15)",
        statement="For P = [[a, 1-a], [1-b, b]]: lambda = a + b - 1, pi = (1-b, 1-a)/(2-a-b) and P^n = 1 pi + lambda^n "
        "(I - 1 pi), equivalently P^n_ij = (beta_ij lambda^n + gamma_ij)/(lambda - 1) as printed in (E.15).",
        kind="symbolic",
        configs={"quick": PowersConfig((0, 1, 2, 3, 5)), "full": PowersConfig((0, 1, 2, 3, 5, 8, 12))},
        predict=_predict_powers,
        observe=_observe_powers,
        judge=Requiring(ExactlyEqual(), ("pi_is_stationary",)),
    )
)

# --- Eqs. (8.1)-(8.3): the Dirichlet posterior (as printed, and corrected)


@dataclass(frozen=True)
class PosteriorConfig:
    """Count tables c_ij (k x k) with their Dirichlet concentrations alpha."""

    tables: tuple[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]], ...]


_POSTERIOR = PosteriorConfig(
    (
        (((3, 1), (0, 5)), (1, 1)),
        (((10, 2, 5), (0, 7, 1), (0, 0, 0)), (1, 1, 1)),
        (((2, 0, 1), (1, 1, 1), (4, 0, 0)), (2, 1, 3)),
    )
)


def _predict_posterior(cfg: PosteriorConfig) -> list[Any]:
    """(8.3) corrected: ``(c_ij + alpha_j)/(N_i + sum alpha)``, every entry of every table."""
    return [m for counts, alpha in cfg.tables for row in tm.posterior_mean(counts, alpha) for m in row]


def _predict_posterior_as_printed(cfg: PosteriorConfig) -> list[Any]:
    """(8.3) as printed: ``(c_ij + alpha_j)/(N + sum alpha)`` with N the total number of transitions."""
    return [m for counts, alpha in cfg.tables for row in tm.posterior_mean_as_printed(counts, alpha) for m in row]


def _posterior_by_quadrature(cfg: PosteriorConfig) -> list[float]:
    return [
        float(m) for counts, alpha in cfg.tables for row in counts for m in mg.posterior_mean_quadrature(row, alpha)
    ]


def _observe_posterior(cfg: PosteriorConfig, ctx: RunContext) -> Observation:
    """Prior times likelihood integrated over each row's simplex (``scipy`` quadrature), no conjugacy used."""
    return Observation(_posterior_by_quadrature(cfg), details={"tables": [list(t) for t in cfg.tables]})


def _observe_posterior_printed(cfg: PosteriorConfig, ctx: RunContext) -> Observation:
    counts, alpha = cfg.tables[0]
    values = _posterior_by_quadrature(cfg)
    return Observation(
        values,
        counterexample={
            "counts": counts,
            "alpha": alpha,
            "printed": [[str(m) for m in row] for row in tm.posterior_mean_as_printed(counts, alpha)],
            "corrected": [[str(m) for m in row] for row in tm.posterior_mean(counts, alpha)],
            "observed_by_quadrature": values[: len(counts) ** 2],
            "why": "each row's posterior only sees the N_i transitions out of state i",
        },
    )


register(
    Claim(
        id="edelman-ch8-eq8.1-8.3-posterior",
        source=f"{EDELMAN}, Sec. 8.2.2, Eqs. (8.1)-(8.3) (corrected, docs/markov.md)",
        statement="Given the counts c_ij of the transitions out of state i, P_{i,:} | x ~ Dir(alpha + c_{i,:}), "
        "P_ij | x ~ Beta(c_ij + alpha_j, sum_l alpha_l + N_i - alpha_j - c_ij) and E[P_ij | x] = (c_ij + alpha_j)/"
        "(N_i + sum_l alpha_l), N_i = sum_j c_ij (exact Bayes when x_1 does not depend on P; Remark 8.1).",
        kind="numeric",
        configs={"quick": _POSTERIOR, "full": _POSTERIOR},
        predict=_predict_posterior,
        observe=_observe_posterior,
        judge=MaxAbs(QUAD_ATOL),
    )
)

register(
    Claim(
        id="edelman-ch8-eq8.3-as-printed",
        source=f"{EDELMAN}, Sec. 8.2.2, Eqs. (8.1), (8.3) as printed",
        statement="As printed: (P_i1, ..., P_ik) | x ~ Dir(k, c_i1 + alpha_1, ...) and E[P_ij | x] = (c_ij + alpha_j)/"
        "(N + sum_i alpha_i) (the next line, for alpha = 1, and (8.2) have the right N_i).",
        kind="numeric",
        configs={"quick": _POSTERIOR, "full": _POSTERIOR},
        predict=_predict_posterior_as_printed,
        observe=_observe_posterior_printed,
        judge=RefutedIfDiffers(QUAD_ATOL),
        refutes="E[P_ij | x] = (c_ij + alpha_j)/(N + sum_i alpha_i)",
        corrected_by="edelman-ch8-eq8.1-8.3-posterior",
        erratum=Erratum(
            "typo",
            "(P_i1, ..., P_ik) | x ~ Dir(k, c_i1 + alpha_1, ..., c_ik + alpha_k), (8.1) [...] P_ij | x ~ "
            "Beta(c_ij + alpha_j, sum_j alpha_j + N_i - alpha_j - c_ij), (8.2) where N_i is the total number of "
            "observed transitions from state i. As such, our best (point) estimate for each state j is given by: "
            "E[P_ij | x] = (c_ij + alpha_j)/(N + sum_i alpha_i). (8.3) For the uniform Dirichlet, alpha = (1, ..., 1)^T, "
            "it is E[P_ij | x] = (c_ij + 1)/(N_i + k).",
            "Edelman thesis (2024), Ch. 8, Sec. 8.2.2 ('2nd strategy: bigrams'), Eqs. (8.1) and (8.3) (Sec. 8.2 is "
            "pp. 120-125 by the table of contents)",
        ),
    )
)

# --- The bigram strategy's expected KL given the counts (digamma formula, docs/markov.md)


@dataclass(frozen=True)
class CountRowsConfig:
    """Count rows c_{i,:} of one state i."""

    rows: tuple[tuple[int, ...], ...]


def _predict_expected_kl(cfg: CountRowsConfig) -> list[sympy.Expr]:
    return [tm.expected_kl_given_counts(r) for r in cfg.rows]


def _observe_expected_kl(cfg: CountRowsConfig, ctx: RunContext) -> Observation:
    """``E[KL(P_{i,:} || q) | c]`` by quadrature of the posterior over the simplex."""
    return Observation([mg.expected_kl_quadrature(r) for r in cfg.rows], details={"rows": [list(r) for r in cfg.rows]})


register(
    Claim(
        id="edelman-ch8-eq8.3-expected-kl-digamma",
        source=f"{EDELMAN}, Sec. 8.2.2, Eq. (8.3) (derived in docs/markov.md)",
        statement="Under the posterior Dir(1 + c_{i,:}), the bigram strategy q_j = (c_ij + 1)/(N_i + k) has expected loss "
        "E[KL(P_{i,:} || q) | c] = sum_j q_j [psi(c_ij + 2) - psi(N_i + k + 1) - ln q_j] (= ln 2 - 1/2 for no counts, "
        "k = 2).",
        kind="numeric",
        configs={
            "quick": CountRowsConfig(((0, 0), (3, 1), (10, 2, 5), (0, 7, 1))),
            "full": CountRowsConfig(((0, 0), (3, 1), (10, 2, 5), (0, 7, 1))),
        },
        predict=_predict_expected_kl,
        observe=_observe_expected_kl,
        judge=MaxAbs(1e-8),
    )
)

# --- App. E.2: strategy KLs at the last token


@dataclass(frozen=True)
class StrategyKLConfig:
    """Sampled chains: ``cases`` of (k, t), ``chains`` per case, and the seed."""

    cases: tuple[tuple[int, int], ...]
    chains: int
    seed: int = 0


def _mc_last_token_kl(k: int, t: int, chains: int, strategy: str, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    P = nm.sample_transition_matrices(k, chains, "dirichlet", rng)
    values = mg.last_token_kl(P, nm.sample_sequences(P, t, rng), strategy)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(values.size))


def _observe_uniform_kl(cfg: StrategyKLConfig, ctx: RunContext) -> Observation:
    """Monte Carlo over Dirichlet chains with x_1 ~ pi: the uniform strategy's KL at the last token."""
    k, t = cfg.cases[0]
    mean, se = _mc_last_token_kl(k, t, cfg.chains, "uniform", cfg.seed)
    return Observation(
        mean,
        details={
            "stderr": se,
            "k": k,
            "t": t,
            "chains": cfg.chains,
            "E_pi_H_row": float(tm.expected_row_entropy_two_state()),
            "soft_target_cross_entropy": mean + float(tm.expected_row_entropy_two_state()),
        },
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="edelman-ch8-E.2-uniform-kl",
        resolution=Resolution(
            rel=0.016, why="Monte Carlo over 100,000 chains: 4 standard errors are 1.2 % of the prediction"
        ),
        source=f"{EDELMAN}, App. E.2 (test loss: KL at the last token); docs/markov.md",
        statement="For k = 2 the uniform strategy's KL at the last token is ln 2 - E_pi[H(P_{x,:})] = (5/3) ln 2 + "
        "(2/3) ln^2 2 - 1/6 - pi^2/9 = 0.21226 (the entropy is weighted by the stationary law; the thesis's code "
        "reports the soft-target cross-entropy KL + H instead).",
        kind="numeric",
        configs={
            "quick": StrategyKLConfig(((2, 100),), chains=100_000),
            "full": StrategyKLConfig(((2, 100),), chains=1_000_000),
        },
        predict=lambda cfg: tm.uniform_kl_two_state(),
        observe=_observe_uniform_kl,
        judge=ZScore(MC_Z),
    )
)

#: The strategies whose finite-t KL at the last token has an exact closed form for k = 2 (theory.markov).
EXACT_STRATEGIES = ("uniform", "unigram", "bigram")


@dataclass(frozen=True)
class ExactStrategyKLConfig:
    """k = 2 context lengths t at which the uniform, unigram and bigram strategies' KLs at the last token are
    compared; ``chains`` Monte-Carlo chains per (t, strategy) for the sampled comparison, and the seed."""

    ts: tuple[int, ...]
    chains: int = 100_000
    seed: int = 0


#: Digits to which the exact sums are evaluated in the record (the sums themselves hold hundreds of log terms).
EXACT_DIGITS = 30


def _predict_exact_strategy_kls(cfg: ExactStrategyKLConfig) -> list[sympy.Expr]:
    """The exact finite sums of ``theory.markov.two_state_strategy_kl``, strategy by strategy for each t, evaluated to
    ``EXACT_DIGITS`` digits (the record keeps the number, not the sum of up to thousands of ``(r + s ln 2) ln q``)."""
    return [sympy.N(tm.two_state_strategy_kl(t, s), EXACT_DIGITS) for t in cfg.ts for s in EXACT_STRATEGIES]


def _observe_strategy_kl_quadrature(cfg: ExactStrategyKLConfig, ctx: RunContext) -> Observation:
    """Gauss-Legendre over (a, b) of every transition-count class (counted by runs) and ``dblquad`` of the entropy."""
    values, totals = [], []
    for t in cfg.ts:
        q = mg.two_state_strategy_kl_quadrature(t, EXACT_STRATEGIES)
        values += [q[s] for s in EXACT_STRATEGIES]
        totals.append(q["total_probability"])
    return Observation(
        values,
        details={
            "ts": list(cfg.ts),
            "strategies": list(EXACT_STRATEGIES),
            "total_probability": totals,
            "probabilities_sum_to_one": bool(np.max(np.abs(np.array(totals) - 1.0)) < 1e-12),
        },
    )


register(
    Claim(
        id="edelman-ch8-E.2-strategy-kl-exact",
        source=f"{EDELMAN}, Sec. 8.2.2 and App. E.2 (test loss: KL at the last token); docs/markov.md",
        statement="For k = 2 (flat Dirichlet rows, x_1 ~ pi) the uniform, unigram and bigram strategies' KLs at the last "
        "of t tokens are finite sums -E_pi[H(row)] - sum (r + s ln 2) ln q over the transition-count classes of x_1..x_t "
        "with rational r, s, q: unigram 0.10988 and bigram 0.06540 at t = 10; unigram 0.08734 and bigram 0.009339 at "
        "t = 100.",
        kind="numeric",
        configs={
            "quick": ExactStrategyKLConfig((2, 5, 10, 20, 40)),
            "full": ExactStrategyKLConfig((2, 5, 10, 20, 40, 60, 100)),
        },
        predict=_predict_exact_strategy_kls,
        observe=_observe_strategy_kl_quadrature,
        judge=Requiring(MaxAbs(QUAD_ATOL), ("probabilities_sum_to_one",)),
    )
)


def _observe_strategy_kl_mc(cfg: ExactStrategyKLConfig, ctx: RunContext) -> Observation:
    """Monte Carlo over sampled chains (``numerics.markov.mc_strategy_kl``), one stream per (t, strategy)."""
    means, ses = [], []
    for i, t in enumerate(cfg.ts):
        for j, s in enumerate(EXACT_STRATEGIES):
            mean, se = nm.mc_strategy_kl(2, t, s, cfg.chains, np.random.default_rng([cfg.seed, i, j]))
            means.append(mean)
            ses.append(se)
    return Observation(
        means,
        details={"ts": list(cfg.ts), "strategies": list(EXACT_STRATEGIES), "stderr": ses, "chains": cfg.chains},
        seeds=(cfg.seed,),
    )


register(
    Claim(
        id="edelman-ch8-E.2-strategy-kl-monte-carlo",
        resolution=Resolution(
            rel=0.033,
            why="Monte Carlo over 100,000 chains: 4 standard errors are 1.2-2.1 % of the predicted KLs (edelman-ch8-E.2-strategy-kl-exact checks the exact values)",
        ),
        source=f"{EDELMAN}, Sec. 8.2.2 and App. E.2; docs/markov.md",
        statement="The exact k = 2 strategy KLs at the last token (uniform, unigram, bigram) agree with Monte-Carlo "
        "estimates on sampled chains (t = 10, 20, 40).",
        kind="numeric",
        configs={
            "quick": ExactStrategyKLConfig((10, 20, 40), chains=100_000),
            "full": ExactStrategyKLConfig((10, 20, 40, 100), chains=1_000_000),
        },
        predict=_predict_exact_strategy_kls,
        observe=_observe_strategy_kl_mc,
        judge=ZScore(MC_Z),
    )
)

#: The asymptotic n-gram KL is a large-t statement: the relative distance allowed at t = 100-200. Fixed with the claim
#: before any run; the quick runs give 7-12 % (largest for k = 3, whose k^{n-1} contexts are seen least often).
ASYMPTOTIC_RTOL = 0.15


@dataclass(frozen=True)
class NgramKLConfig:
    """Sampled chains: ``cases`` of (k, t, n) (n = 2: Markov chains and the bigram strategy; n = 3: trigram chains
    and the trigram strategy), ``chains`` per case, and the seed."""

    cases: tuple[tuple[int, int, int], ...]
    chains: int
    seed: int = 0


def _predict_ngram_asymptotic(cfg: NgramKLConfig) -> list[sympy.Rational]:
    return [tm.ngram_kl_asymptotic(k, t, n) for k, t, n in cfg.cases]


def _observe_ngram_kl(cfg: NgramKLConfig, ctx: RunContext) -> Observation:
    """Monte Carlo: the n-gram strategy's KL at the last token on n-gram chains, per (k, t, n)."""
    rows = [
        nm.mc_strategy_kl(
            k, t, "bigram" if n == 2 else "trigram", cfg.chains, np.random.default_rng(cfg.seed + i), order=n
        )
        for i, (k, t, n) in enumerate(cfg.cases)
    ]
    return Observation(
        [m for m, _ in rows],
        details={"cases": [list(c) for c in cfg.cases], "stderr": [s for _, s in rows], "chains": cfg.chains},
        seeds=tuple(cfg.seed + i for i in range(len(cfg.cases))),
    )


register(
    Claim(
        id="edelman-ch8-bigram-kl-asymptotic",
        resolution=Resolution(
            rel=0.28,
            why="the prediction is the leading-order asymptotic k(k-1)/(2t); at t = 100-200 the finite-t KL differs from it by 7-12 % (the subleading terms), hence the relative window of 15 %",
        ),
        source=f"{EDELMAN}, Sec. 8.2.2 and App. E.2 (derived in docs/markov.md)",
        statement="The bigram strategy's KL at the last token is about k(k-1)/(2t) for large t, and the n-gram "
        "strategy's on n-gram chains about k^{n-1}(k-1)/(2t): 0.0100 for k = 2 and 0.030 for k = 3 at t = 100; 0.0100 "
        "for trigrams, k = 2, t = 200.",
        kind="numeric",
        configs={
            "quick": NgramKLConfig(((2, 100, 2), (3, 100, 2), (2, 200, 3)), chains=40_000),
            "full": NgramKLConfig(((2, 100, 2), (3, 100, 2), (2, 400, 2), (2, 200, 3), (3, 200, 3)), chains=200_000),
        },
        predict=_predict_ngram_asymptotic,
        observe=_observe_ngram_kl,
        judge=MaxRel(ASYMPTOTIC_RTOL),
    )
)

# --- Lemma 8.4 / E.1: the integrals (E.24), (E.25), (E.29), (E.42), (E.40), (E.43)


@dataclass(frozen=True)
class IntegralsConfig:
    """Names of Lemma 8.4 integrals (``theory.markov.LEMMA84_INTEGRANDS`` or ``"D"``)."""

    names: tuple[str, ...]


def _predict_integrals(cfg: IntegralsConfig) -> list[sympy.Expr]:
    """sympy integration of the integrands as printed in App. E.1."""
    return [tm.lemma84_constant(n) for n in cfg.names]


def _observe_integrals(cfg: IntegralsConfig, ctx: RunContext) -> Observation:
    """``scipy.integrate.dblquad`` of the definitions (pi from the balance equation)."""
    values = [mg.lemma84_quadrature(n) for n in cfg.names]
    by_name = dict(zip(cfg.names, values))
    details: dict[str, Any] = {"names": list(cfg.names)}
    if "E.24" in by_name and "E.25" in by_name:
        details["ratio_B_over_A"] = by_name["E.24"] / by_name["E.25"]
    details["printed_closed_forms_agree"] = all(
        sympy.simplify(tm.lemma84_constant(n) - tm.lemma84_closed_form(n)) == 0 for n in cfg.names
    )
    return Observation(values, details=details)


register(
    Claim(
        id="edelman-ch8-lemma8.4-integrals",
        source=f"{EDELMAN}, Lemma 8.4 / E.1, Eqs. (E.24), (E.25), (E.29), (E.42)",
        statement="B = E[pi_1^2 (a - 1/2)(pi_1 - pi_2)] = (ln 256 - 5)/12, A = E[pi_1 pi_2 (a - 1/2)(pi_1 - pi_2)] = "
        "(7 - 10 ln 2)/6 (B/A = 3.98, 'B ~ 4A'), E[pi_1^2 + pi_2^2] = 2 - ln 4, D = 3/2 - ln 4 and K_1 = (1 - ln 2)/3.",
        kind="numeric",
        configs={
            "quick": IntegralsConfig(("E.24", "E.25", "E.29-collision", "D", "E.42")),
            "full": IntegralsConfig(("E.24", "E.25", "E.29-collision", "D", "E.42")),
        },
        predict=_predict_integrals,
        observe=_observe_integrals,
        judge=Requiring(MaxAbs(QUAD_ATOL), ("printed_closed_forms_agree",)),
    )
)


@dataclass(frozen=True)
class KjConfig:
    """The indices j of the second-step coefficients K_j."""

    js: tuple[int, ...]


def _observe_kj(cfg: KjConfig, ctx: RunContext) -> Observation:
    values = [mg.K_quadrature(j) for j in cfg.js]
    by_j = dict(zip(cfg.js, values))
    even_beats_odd = all(
        by_j[j] > by_j[n] for j in cfg.js if j % 2 == 0 for n in (j - 1, j + 1) if n in by_j and n >= 1
    )
    k2_largest = 2 in by_j and all(by_j[2] > v for j, v in by_j.items() if j != 2)
    return Observation(
        values,
        details={
            "js": list(cfg.js),
            "even_beats_odd_neighbours": even_beats_odd,
            "K_2_largest": k2_largest,
            "even_odd_pattern_and_K_2_largest": bool(even_beats_odd and k2_largest),
        },
    )


register(
    Claim(
        id="edelman-ch8-E.40-Kj-even-odd",
        source=f"{EDELMAN}, Lemma E.1, Eqs. (E.39), (E.40); Sec. 8.3.2 ('even/odd pattern')",
        statement="The second-step diagonal-bias coefficients K_j = E[sum_{l,i} pi_l^2 (P^{j-1})_li (P_li - 1/2)] are "
        "K_1 = (1 - ln 2)/3, K_2 = 8/3 - (11/3) ln 2, K_3 = 121/20 - (43/5) ln 2, ...: every even j beats its odd "
        "neighbours and K_2 is the largest.",
        kind="numeric",
        configs={"quick": KjConfig(tuple(range(1, 9))), "full": KjConfig(tuple(range(1, 9)))},
        predict=lambda cfg: [tm.K(j) for j in cfg.js],
        observe=_observe_kj,
        judge=Requiring(MaxAbs(QUAD_ATOL), ("even_odd_pattern_and_K_2_largest",)),
    )
)


@dataclass(frozen=True)
class NoConfig:
    """A claim without parameters."""


def _observe_k2(cfg: NoConfig, ctx: RunContext) -> Observation:
    return Observation(mg.K_quadrature(2), details={"K_1": mg.K_quadrature(1)})


def _observe_k2_printed(cfg: NoConfig, ctx: RunContext) -> Observation:
    k2 = mg.K_quadrature(2)
    return Observation(
        k2,
        counterexample={
            "printed": str(tm.e43_as_printed()),
            "printed_value": float(tm.e43_as_printed()),
            "observed_by_quadrature": k2,
            "corrected": str(tm.e43_corrected()),
            "why": "the second term is (8 ln 2 - 5)/6 > 0; with the printed sign K_2 < K_1 and v_2 would not dominate",
        },
    )


register(
    Claim(
        id="edelman-ch8-E.43-K2",
        source=f"{EDELMAN}, Lemma E.1, Eq. (E.43) (sign corrected, docs/markov.md)",
        statement="K_2 = 4 E[(a-1)(b-1)^2 (a-1/2) lambda/(a+b-2)^3] + 2 E[(b-a)(b-1)^2 (a-1/2)/(a+b-2)^3] = "
        "(7 - 10 ln 2)/2 + (8 ln 2 - 5)/6 = 0.12513 > K_1 = 0.10228.",
        kind="numeric",
        configs={"quick": NoConfig(), "full": NoConfig()},
        predict=lambda cfg: tm.e43_corrected(),
        observe=_observe_k2,
        judge=MaxAbs(QUAD_ATOL),
    )
)

register(
    Claim(
        id="edelman-ch8-E.43-as-printed",
        source=f"{EDELMAN}, Lemma E.1, Eq. (E.43) as printed",
        statement="As printed: the j = 2 expectation of (E.40) equals (7 - 10 ln 2)/2 + (5 - 8 ln 2)/6 (= -0.0566; the "
        "next sentence, 'The latter term is larger' than K_1 = 0.1023, holds only with the second term's sign flipped).",
        kind="numeric",
        configs={"quick": NoConfig(), "full": NoConfig()},
        predict=lambda cfg: tm.e43_as_printed(),
        observe=_observe_k2_printed,
        judge=RefutedIfDiffers(QUAD_ATOL),
        refutes="(7 - 10 ln 2)/2 + (5 - 8 ln 2)/6",
        corrected_by="edelman-ch8-E.43-K2",
        erratum=Erratum(
            "typo",
            "4 E_{a,b}[(a-1)(b-1)^2 (a - 1/2)/(a+b-2)^3 (a+b-1)] + 2 E_{a,b}[(b-a)(b-1)^2 (a - 1/2)/(a+b-2)^3] = "
            "(7 - 10 ln 2)/2 + (5 - 8 ln 2)/6. (E.43) The latter term is larger, so, when t -> infinity, it is "
            "v_2^(2) > v_1^(2).",
            "Edelman thesis (2024), App. E.1, proof of Lemma E.1, Eq. (E.43) (App. E.1 is pp. 339-360 by the table of "
            "contents)",
        ),
    )
)

# --- Lemma 8.4 / E.1: exact finite-t gradients against the leading-order formulas


@dataclass(frozen=True)
class RelativeErrorWithinCOverT(Judge):
    """The leading-order formula's relative error against the exact finite-t value shrinks like 1/t: ``pass`` iff
    ``t |observed - predicted| / |predicted| <= const`` for every entry at every t (``config.ts``; the prediction
    and the observation are one list of entries per t)."""

    const: float

    def _scaled_errors(self, predicted: Any, obs: Any, config: Any) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero prediction gives an infinite error: fail
            rows = [
                t * np.abs(as_floats(o) - as_floats(p)) / np.abs(as_floats(p))
                for t, p, o in zip(config.ts, predicted, obs.value)
            ]
        return np.array(rows)

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        if len(predicted) != len(obs.value) or len(predicted) != len(config.ts):
            return "fail", "one list of entries per t is needed"
        scaled = self._scaled_errors(predicted, obs, config)
        worst = float(np.max(scaled))
        ok = bool(np.isfinite(worst) and worst <= self.const)
        per_t = ", ".join(f"t={t}: {row.max():.3g}" for t, row in zip(config.ts, scaled))
        return ("pass" if ok else "fail"), f"max t x relative error {worst:.3g} (tolerance {self.const:g}); {per_t}"

    def describe(self) -> str:
        return f"t x |relative error of the leading-order formula| <= {self.const:g} at every t (error O(1/t))"

    def perturb(self, predicted: Any, obs: Any) -> Any:
        """Every prediction moved away from its observation by 1 % or 10 x the tolerance ``const / t`` at the
        largest t (``obs.details["ts"]``), whichever is larger."""
        step = max(PERTURB_REL, PERTURB_TOLS * self.const / max(obs.details["ts"]))
        out = []
        for p, o in zip(predicted, obs.value):
            pv, ov = as_floats(p), as_floats(o)
            away = np.where(pv >= ov, 1.0, -1.0)
            out.append(list(pv + away * np.abs(pv) * step))
        return out


#: t x relative error allowed. Set AFTER seeing the exact finite-t values: the observed constants (step 1) approach
#: about 5.5 for the diagonal and 7 for the off-diagonal entry (6.65 at t = 100, 6.8 at t = 200); step 2 gives
#: about 1.7. What the check still rejects: a wrong leading coefficient leaves an O(1) relative error, so t x error
#: grows like t (a 5 % error already gives 10 at t = 200). docs/markov.md, "Where the thresholds come from".
LEADING_ORDER_CONST = 10.0
POST_HOC_LEADING = PostHoc(
    "LEADING_ORDER_CONST",
    "10 (t x |relative error| <= 10 at every t)",
    "after seeing the exact finite-t values (step 1: maximum 5.89-6.8 at t = 25-200; step 2: about 1.7)",
    "a wrong leading coefficient leaves an O(1) relative error, so t x error grows like t and passes 10 by t = 200 "
    "for a 5 % error (docs/markov.md)",
)


@dataclass(frozen=True)
class FiniteTConfig:
    """Context lengths t; v coordinates j compared."""

    ts: tuple[int, ...]
    js: tuple[int, ...] = (1, 2, 3)


def _predict_step1(cfg: FiniteTConfig) -> list[list[sympy.Expr]]:
    """(E.23) and (E.29) per t: W_11, W_12 and v_j in units of c eta."""
    out = []
    for t in cfg.ts:
        W = tm.step1_W_leading(t)
        out.append([W[0][0], W[0][1]] + [tm.step1_v_leading(t, j) for j in cfg.js])
    return out


def _observe_step1(cfg: FiniteTConfig, ctx: RunContext) -> Observation:
    """Exact finite-t population gradients: Gauss-Legendre over (a, b) and matrix powers."""
    rows, full = [], {}
    for t in cfg.ts:
        g = mg.finite_t_gradients(t)
        rows.append([g.GW[0, 0], g.GW[0, 1]] + [g.GV[j - 1] for j in cfg.js])
        full[str(t)] = {
            "W": g.GW.tolist(),
            "v_first": g.GV[:6].tolist(),
            "symmetric_equal_diagonal": bool(
                abs(g.GW[0, 1] - g.GW[1, 0]) < 1e-9 * abs(g.GW[0, 1])
                and abs(g.GW[0, 0] - g.GW[1, 1]) < 1e-9 * g.GW[0, 0]
            ),
        }
    return Observation(
        rows,
        details={
            "ts": list(cfg.ts),
            "js": list(cfg.js),
            "per_t": full,
            "W_symmetric_with_equal_diagonal": all(v["symmetric_equal_diagonal"] for v in full.values()),
        },
    )


register(
    Claim(
        id="edelman-ch8-lemma8.4-step1-leading-order",
        resolution=Resolution(
            rel=1.0,
            why="the leading-order formula is judged by t x relative error <= 10 at every t (an O(1/t) error); at the smallest t that window is wide, so one entry alone is detected only from 95 %",
        ),
        source=f"{EDELMAN}, Lemma 8.4 / E.1, Eqs. (E.13), (E.23), (E.26)-(E.29); Fig. E.1",
        statement="After one population GD step on the margin loss from W_k = c 11^T, v = c 1 (k = 2, all hinges "
        "active): (W^(1) - c 11^T)/(c eta) = ((t+1)(t+2)/6) [[B, A], [A, B]] + O(t) and (v_j^(1) - c)/(c eta) = "
        "((t-j+1)(t-j+2)/(2t)) D + O(1); the exact finite-t gradient (78.0/19.6 leading vs 81.70/18.31 exact at "
        "t = 100) approaches the leading order with relative error O(1/t).",
        kind="numeric",
        configs={"quick": FiniteTConfig((25, 50, 100, 200)), "full": FiniteTConfig((25, 50, 100, 200, 400))},
        predict=_predict_step1,
        observe=_observe_step1,
        judge=Requiring(RelativeErrorWithinCOverT(LEADING_ORDER_CONST), ("W_symmetric_with_equal_diagonal",)),
        post_hoc=(POST_HOC_LEADING,),
    )
)


def _predict_step2(cfg: FiniteTConfig) -> list[list[sympy.Expr]]:
    """(E.39), (E.40) per t: G^I_j = ((t-j+1)(t-j+2)/(2t)) K_j."""
    return [[tm.step2_diag_leading(t, j) for j in cfg.js] for t in cfg.ts]


def _observe_step2(cfg: FiniteTConfig, ctx: RunContext) -> Observation:
    rows = [[mg.finite_t_gradients(t).GI[j - 1] for j in cfg.js] for t in cfg.ts]
    return Observation(rows, details={"ts": list(cfg.ts), "js": list(cfg.js)})


register(
    Claim(
        id="edelman-ch8-lemma8.4-step2-leading-order",
        resolution=Resolution(
            rel=0.93,
            why="the leading-order formula is judged by t x relative error <= 10 at every t (an O(1/t) error); at the smallest t that window is wide, so one entry alone is detected only from 81 %",
        ),
        source=f"{EDELMAN}, Lemma E.1, Eqs. (E.30)-(E.40); Fig. E.2",
        statement="The diagonal-bias part of the second-step v-gradient (W_k = I, units (rho - c') eta) is "
        "G^I_j = ((t-j+1)(t-j+2)/(2t)) K_j + O(1); the exact finite-t profile approaches it with relative error O(1/t).",
        kind="numeric",
        configs={
            "quick": FiniteTConfig((25, 50, 100, 200), js=(1, 2, 3, 4)),
            "full": FiniteTConfig((25, 50, 100, 200, 400), js=(1, 2, 3, 4)),
        },
        predict=_predict_step2,
        observe=_observe_step2,
        judge=RelativeErrorWithinCOverT(LEADING_ORDER_CONST),
        post_hoc=(POST_HOC_LEADING,),
    )
)


@dataclass(frozen=True)
class TwoStepConfig:
    """Context length, init scale c and learning rate eta (Fig. E.1 / E.2: c = 0.02, eta = 0.03, t = 100)."""

    t: int
    c: float
    eta: float


def _observe_two_step(cfg: TwoStepConfig, ctx: RunContext) -> Observation:
    """argmax_j of the exact finite-t v^(2) (1-based)."""
    v2 = mg.two_step_v(mg.finite_t_gradients(cfg.t), cfg.c, cfg.eta)
    first = v2[:8]
    return Observation(
        int(np.argmax(v2)) + 1,
        details={
            "v2_first": first.tolist(),
            "even_beats_odd_neighbours": bool(
                all(first[j] > first[j - 1] and first[j] > first[j + 1] for j in (1, 3, 5))
            ),
        },
    )


register(
    Claim(
        id="edelman-ch8-lemma8.4-v2-dominant",
        source=f"{EDELMAN}, Lemma 8.4 / E.1 (after the second step); Fig. E.1, E.2 settings",
        statement="After two population GD steps, v_2^(2) > v_j^(2) for every j != 2 (the argmax of K_j at leading "
        "order), with the even/odd pattern; exact at t = 100, c = 0.02, eta = 0.03.",
        kind="numeric",
        configs={"quick": TwoStepConfig(100, 0.02, 0.03), "full": TwoStepConfig(200, 0.02, 0.03)},
        predict=lambda cfg: tm.leading_argmax_v2(),
        observe=_observe_two_step,
        judge=Requiring(ExactlyEqual(), ("even_beats_odd_neighbours",)),
    )
)

# --- Cor. E.2 (a = b): the v update (as printed, and corrected) and the diverging diagonal coefficient


@dataclass(frozen=True)
class CorE2Config:
    """Context length t, coordinates j, Monte Carlo chains and seed."""

    t: int
    js: tuple[int, ...]
    chains: int
    seed: int = 0


def _mc_symmetric_v(cfg: CorE2Config) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(cfg.seed)
    P = nm.sample_transition_matrices(2, cfg.chains, "symmetric", rng)
    g = mg.sample_v_gradients(nm.sample_sequences(P, cfg.t + 1, rng), 2)[:, [j - 1 for j in cfg.js]]
    return g.mean(axis=0), g.std(axis=0, ddof=1) / np.sqrt(g.shape[0])


def _observe_cor_e2(cfg: CorE2Config, ctx: RunContext) -> Observation:
    """Monte Carlo: the per-sequence v-gradient averaged over a = b ~ U(0, 1) chains."""
    mean, se = _mc_symmetric_v(cfg)
    exact = mg.finite_t_gradients(cfg.t, prior="symmetric")
    return Observation(
        mean.tolist(),
        details={
            "stderr": se.tolist(),
            "js": list(cfg.js),
            "quadrature": [exact.GV[j - 1] for j in cfg.js],
            "W_step1_quadrature": exact.GW.tolist(),
        },
        seeds=(cfg.seed,),
    )


def _observe_e49(cfg: CorE2Config, ctx: RunContext) -> Observation:
    mean, se = _mc_symmetric_v(cfg)
    return Observation(
        mean.tolist(),
        details={"stderr": se.tolist()},
        counterexample={
            "t": cfg.t,
            "js": list(cfg.js),
            "printed": [str(tm.e49_as_printed(cfg.t, j)) for j in cfg.js],
            "corrected": [float(tm.cor_e2_v_update(cfg.t, j)) for j in cfg.js],
            "monte_carlo": mean.tolist(),
            "stderr": se.tolist(),
            "why": "lambda = 2a - 1 ~ U(-1, 1): P[x_t' = x_{p+1}] - 1/2 = lambda^n/2 with E[lambda^n] = 1/(n+1) for even n",
        },
        seeds=(cfg.seed,),
    )


_COR_E2 = {"quick": CorE2Config(100, (1, 2, 3), 20_000), "full": CorE2Config(100, (1, 2, 3, 10, 50), 200_000)}

register(
    Claim(
        id="edelman-ch8-corE.2-v-update",
        resolution=Resolution(
            rel=0.17, why="Monte Carlo over 20,000 chains: 4 standard errors are 12 % of the prediction"
        ),
        source=f"{EDELMAN}, Cor. E.2 (v update corrected, docs/markov.md)",
        statement="For a = b ~ U(0, 1): (v_j^(1) - c)/(c eta) = (1/(2t)) sum_{p=j}^{t} sum_{even n <= p-j+1} 1/(n+1) > 0, "
        "of order (t-j+1) ln(t)/t (+0.7433 at t = 100, j = 1): no quadratic, v_1-favouring unigram signal.",
        kind="numeric",
        configs=_COR_E2,
        predict=lambda cfg: [tm.cor_e2_v_update(cfg.t, j) for j in cfg.js],
        observe=_observe_cor_e2,
        judge=ZScore(MC_Z),
    )
)

#: (E.49) is a leading-order statement with an O(1/t) remainder: a difference beyond this refutes it. 0.1 is about
#: 4 standard errors of the quick Monte Carlo (0.023 each) and well above an O(1/t) remainder (1/t = 0.01), so a printed
#: value within noise is not refuted; the record does not show whether it was chosen before the first run (the
#: observed gap, 1.23 at j = 1, is 12 x larger). docs/markov.md.
E49_TOL = 0.1

register(
    Claim(
        id="edelman-ch8-E.49-as-printed",
        source=f"{EDELMAN}, Cor. E.2, Eqs. (E.45), (E.49) as printed",
        statement="As printed: for a = b, v_j^(1) = c - (c eta/(2t)) (t - j + 1) + O(1/t).",
        kind="numeric",
        configs=_COR_E2,
        predict=lambda cfg: [tm.e49_as_printed(cfg.t, j) for j in cfg.js],
        observe=_observe_e49,
        judge=RefutedIfDiffers(E49_TOL),
        refutes="v_j^(1) = c - (c eta/(2t)) (t - j + 1) + O(1/t)",
        corrected_by="edelman-ch8-corE.2-v-update",
        erratum=Erratum(
            "substantive",
            "Corollary E.2. When a = b, it is [...] v_j^(1) = c - (c eta/(2t)) (t - j + 1) + O(1/t), j in [t]. (E.45) "
            "[...] Now, for the v vector, we observe that when we set a = b in eq. (E.28), the leading term disappears "
            "and its expression simplifies to: v_j^(1) = c - (c eta/t) E_{a ~ Unif([0,1])}[2(2a-2) (a-1)^2/(2a-2)^3 "
            "(t-j+1)] + O(1/t) = c - (c eta/(2t)) (t-j+1) + O(1/t). (E.49)",
            "Edelman thesis (2024), App. E.1, Corollary E.2, Eq. (E.45), and its proof, Eq. (E.49) (App. E.1 is "
            "pp. 339-360 by the table of contents)",
        ),
    )
)


@dataclass(frozen=True)
class DivergenceConfig:
    """Truncation points delta (the coefficient is integrated over a in [0, 1 - delta])."""

    deltas: tuple[float, ...]


def _observe_divergence(cfg: DivergenceConfig, ctx: RunContext) -> Observation:
    """``scipy.integrate.quad`` of ``-(a - 1/2)/(8(a - 1))`` on ``[0, 1 - delta]``; the finite-t diagonal for
    comparison."""
    values = [
        integrate.quad(lambda a: -(a - 0.5) / (8 * (a - 1)), 0.0, 1.0 - d, epsabs=1e-13, epsrel=1e-13, limit=400)[0]
        for d in cfg.deltas
    ]
    finite = {str(t): mg.finite_t_gradients(t, prior="symmetric").GW[0, 0] for t in (25, 50, 100, 200)}
    return Observation(values, details={"deltas": list(cfg.deltas), "finite_t_diagonal_over_c_eta": finite})


register(
    Claim(
        id="edelman-ch8-E.45-diagonal-log-divergence",
        source=f"{EDELMAN}, Cor. E.2, Eqs. (E.45), (E.47)",
        statement="The coefficient E_a[-(a - 1/2)/(8(a - 1))] of (E.47) is +infinity: truncated at a = 1 - delta it "
        "equals -(1 - delta)/8 - ln(delta)/16, which grows like ln(1/delta)/16; the O(t) expansion is not uniform "
        "as lambda -> 1 (the exact finite-t diagonal is finite, 16.0 c eta at t = 100).",
        kind="numeric",
        configs={
            "quick": DivergenceConfig((1e-2, 1e-4, 1e-6, 1e-8)),
            "full": DivergenceConfig((1e-2, 1e-4, 1e-6, 1e-8)),
        },
        predict=lambda cfg: [tm.cor_e2_diagonal_truncated(d) for d in cfg.deltas],
        observe=_observe_divergence,
        judge=MaxAbs(QUAD_ATOL),
    )
)

# --- Fact 8.3 and Prop. 8.2: the minimal model and the two-layer construction


@dataclass(frozen=True)
class SequencesConfig:
    """Random token sequences: ``n`` of length ``t`` on ``k`` states; ``c`` is the construction's scale."""

    k: int
    t: int
    n: int
    seed: int = 0
    c: float = 40.0


def _random_sequences(cfg: SequencesConfig) -> np.ndarray:
    return np.random.default_rng(cfg.seed).integers(0, cfg.k, size=(cfg.n, cfg.t))


def _predict_fact83(cfg: SequencesConfig) -> list[Any]:
    """Bigram counts then unigram counts, counted by hand (``theory.markov``)."""
    seqs = _random_sequences(cfg)
    return [tm.bigram_logits(s, cfg.k) for s in seqs] + [tm.unigram_logits(s, cfg.k) for s in seqs]


def _observe_fact83(cfg: SequencesConfig, ctx: RunContext) -> Observation:
    """The minimal model's forward pass with (v = e_2, W_k = I) and (v = e_1, W_k = 11^T)."""
    seqs = _random_sequences(cfg)
    e1, e2 = np.eye(cfg.t)[0], np.eye(cfg.t)[1]
    bigram = mg.minimal_model_logits(seqs, np.eye(cfg.k), e2)
    unigram = mg.minimal_model_logits(seqs, np.ones((cfg.k, cfg.k)), e1)
    return Observation(bigram.tolist() + unigram.tolist(), details={"k": cfg.k, "t": cfg.t, "sequences": cfg.n})


register(
    Claim(
        id="edelman-ch8-fact8.3-minimal-model-counts",
        source=f"{EDELMAN}, Fact 8.3, Eq. (8.8) / (E.2)",
        statement="The minimal model f(E) = mask(E W_k (M E)^T) E with v = e_2, W_k = I outputs the bigram counts "
        "f_{p,i} = sum_{t'=2}^{p} 1{x_t' = i} 1{x_{t'-1} = x_p}, and with v = e_1, W_k = 11^T the unigram counts "
        "f_{p,i} = #{t' <= p: x_t' = i}, exactly.",
        kind="numeric",
        configs={"quick": SequencesConfig(3, 40, 20), "full": SequencesConfig(4, 100, 50)},
        predict=_predict_fact83,
        observe=_observe_fact83,
        judge=MaxAbs(0.0),
    )
)

#: Softmax attention with c = 40 approximates the hard construction to this absolute error. The observed error is
#: 0.0024 (quick); the record does not show whether 1e-2 was chosen before that run, so treat it as set after seeing
#: it (about 4 x the observed error). The as-printed counts differ from the outputs by far more wherever a state has
#: been left more than once (5 against 0.25 in the counterexample). docs/markov.md.
CONSTRUCTION_ATOL = 1e-2


def _defined_positions(cfg: SequencesConfig) -> list[tuple[int, int, list]]:
    out = []
    for n, s in enumerate(_random_sequences(cfg)):
        for i, freq in enumerate(tm.normalised_bigram_frequencies(s, cfg.k)):
            if freq is not None:
                out.append((n, i, freq))
    return out


def _predict_construction(cfg: SequencesConfig) -> list[Any]:
    """Normalised bigram frequencies c_{x_i, j}/N_{x_i} with x_0 := x_1, where some transition leaves x_i."""
    return [f for _, _, freq in _defined_positions(cfg) for f in freq]


def _predict_construction_as_printed(cfg: SequencesConfig) -> list[Any]:
    """Prop. 8.2 as printed: the number of times x_i -> j appears (raw counts), same positions."""
    out = []
    seqs = _random_sequences(cfg)
    for n, i, _ in _defined_positions(cfg):
        s = seqs[n]
        prev = np.concatenate([[s[0]], s[:-1]])
        out += [int(np.sum((prev[: i + 1] == s[i]) & (s[: i + 1] == j))) for j in range(cfg.k)]
    return out


def _construction_values(cfg: SequencesConfig) -> list[float]:
    out = mg.construction_outputs(_random_sequences(cfg), cfg.k, cfg.c)
    return [float(x) for n, i, _ in _defined_positions(cfg) for x in out[n, i]]


def _observe_construction(cfg: SequencesConfig, ctx: RunContext) -> Observation:
    """The numpy forward pass of the construction (softmax attention, relative positions)."""
    return Observation(_construction_values(cfg), details={"k": cfg.k, "t": cfg.t, "c": cfg.c, "sequences": cfg.n})


def _observe_construction_printed(cfg: SequencesConfig, ctx: RunContext) -> Observation:
    values = _construction_values(cfg)
    seq = _random_sequences(cfg)[0]
    i = cfg.t - 1
    prev = np.concatenate([[seq[0]], seq[:-1]])
    return Observation(
        values,
        counterexample={
            "sequence": seq.tolist(),
            "position": i + 1,
            "printed_counts": [int(np.sum((prev == seq[i]) & (seq == j))) for j in range(cfg.k)],
            "output_last_position": [float(x) for x in mg.construction_outputs(seq[None], cfg.k, cfg.c)[0, i]],
            "normalised_frequencies": [str(f) for f in tm.normalised_bigram_frequencies(seq, cfg.k)[i] or []],
            "why": "softmax attention averages the successors of earlier copies of x_i: it outputs frequencies, not counts",
        },
    )


_CONSTRUCTION = {"quick": SequencesConfig(3, 60, 5), "full": SequencesConfig(3, 100, 20)}

register(
    Claim(
        id="edelman-ch8-prop8.2-construction",
        resolution=Resolution(
            rel=0.062,
            why="the construction's values are judged to an absolute 0.01 (the finite-c approximation of Prop. 8.2 at c = 40): a whole error of 1 % is detected, one small entry alone from 5.4 % on",
        ),
        source=f"{EDELMAN}, Prop. 8.2 (corrected, docs/markov.md)",
        statement="The two-layer single-head attention-only construction of Prop. 8.2 (d = 3k, c = 40) outputs at "
        "position i the normalised bigram frequencies c_{x_i, j}/N_{x_i} of the transitions seen up to i, counting the "
        "spurious transition x_0 := x_1 (position 1 attends to itself in layer 1).",
        kind="numeric",
        configs=_CONSTRUCTION,
        predict=_predict_construction,
        observe=_observe_construction,
        judge=MaxAbs(CONSTRUCTION_ATOL),
        post_hoc=(
            PostHoc(
                "CONSTRUCTION_ATOL",
                "1e-2",
                "not recorded; read as after the first quick run, which showed a maximum error of 0.0024 at c = 40",
                "about 4 x the observed softmax error of the construction; the as-printed counts differ by far more "
                "(5 against 0.25 in the counterexample), so the verdicts do not hinge on it",
            ),
        ),
    )
)

register(
    Claim(
        id="edelman-ch8-prop8.2-counts-as-printed",
        source=f"{EDELMAN}, Prop. 8.2 as printed",
        statement="As printed: the construction's output 'is exactly the empirical bigram statistics (that is, the number "
        "of times x_i -> j appears before position i)'. (The proposition itself, 'can find the bigram statistics', "
        "holds with the normalised frequencies the construction outputs.)",
        kind="numeric",
        configs=_CONSTRUCTION,
        predict=_predict_construction_as_printed,
        observe=_observe_construction_printed,
        judge=RefutedIfDiffers(CONSTRUCTION_ATOL),
        refutes="Attn_2(e)_{i, j+2k} = the number of times x_i -> j appears before position i",
        corrected_by="edelman-ch8-prop8.2-construction",
        erratum=Erratum(
            "substantive",
            "For any 2 <= i < t, 1 <= j < k, Attn_2(e)_{i,j+2k} = sum_{b=1}^{3k} 1[x_{b-1} = x_i](z W_V^(2))_{b,j} = "
            "sum_{b=1}^k sum_{g=1}^k 1[x_{b-1} = x_i] 1[x_b = j]. Which is exactly the empirical bigram statistics "
            "(that is, the number of times x_i -> j appears before position i), so to make this the output, P = "
            "(0; 0; I^{k x k})",
            "Edelman thesis (2024), Ch. 8, Sec. 8.2.3, proof of Proposition 8.2 (Sec. 8.2 is pp. 120-125 by the table "
            "of contents)",
        ),
    )
)
