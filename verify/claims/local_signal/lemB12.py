"""Karp Ch. 3, App. B.2.2, Lemma B.12 (the general case 1 <= m <= C of Lemma B.11): the probability of Event A,
``|g(eps)| >= C sigma |g(w_*)|`` with ``g(x) = sum_j <w_j, x> 1{|<w_j^(0), x>| + b_j >= 0}``, for m = 2, 3, 4
frozen filters, as a sum of Gaussian box probabilities (docs/local_signal.md), against a Monte Carlo of the event
from the CNTK features of noise rows; and the explicit steps of the lemma's proof."""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from numerics import local_signal as nl
from theory import local_signal as tl

from ..base import Claim, Observation, PostHoc, Resolution, RunContext, register
from ..judges import Requiring, ZScore
from .common import DOC, MC_Z
from .kernel import SRC_B2, event_observation, init_event_edge, kernel_dimension

#: A case of :class:`LemmaB12Config`: (m, weights, biases).
Case = tuple[int, str, str]


@dataclass(frozen=True)
class LemmaB12Config:
    """Lemma B.12's Event A at k noise rows (sigma = log k/sqrt k, d = 1/sigma^2 rounded, 21 at k = 1000,
    ``w_* = 1/sqrt(d) (1, ..., 1)``) for instances ``(w^(0), w, b)`` of m filters.

    Per random init (``init_seeds``; the m filters ``w^(0) ~ N(0, I_d)`` drawn with seed ``init seed + 100 m``; the
    event is scale-free) the ``cases``; the ``edge_cases`` use the init at the edge of the proof's Init Event,
    ``w_j^(0) = (D/sqrt d) w_* + sqrt(1 - D^2/d) u_j`` with ``u_j`` orthonormal and orthogonal to w_*, D the
    0.999-quantile of ``sqrt(d) |<w^(0)/|w^(0)|, w_*>|`` of one filter (the m-filter constants D^(l), D^(u), D^(p) are
    not specified by the thesis). A case is ``(m, weights, bias)``: weights ``w_star`` (every ``w_j = w_*``),
    ``w0_dir`` (``w_j = w_j^(0)/|w_j^(0)|``: the event's covariance is singular), ``mix`` (``w_j^(0)/|w_j^(0)| +
    w_*``) or ``random`` (N(0, I_d) rows, seed init seed + 1000 + m); bias ``none`` (0: no gate), ``half`` (``b_j =
    -a_j/2``, ``a_j = |<w_j^(0), w_*>|``), ``edge`` (``b_j = -(1 - 1e-9) a_j``: every gate opens on the signal row, just),
    ``split`` (``edge`` on even j, ``-2 a_j`` on odd j: the odd gates are shut on the signal row, so the proof's
    E_2 is not empty) or ``case1`` (``-2 a_j`` on all: g(w_*) = 0, probability 1). ``n`` Monte Carlo rows per
    instance (seed ``seed`` + 2 x the instance's index), and ``n_proof`` for the run at the proof's constant C'
    (seed + 1; a one-sided check with a wide margin); the quadrature uses ``nodes`` Gauss-Legendre points per
    dimension."""

    k: int = 1000
    C: float = 1.0
    n: int = 100_000
    n_proof: int = 25_000
    seed: int = 1200
    nodes: int = 12
    init_seeds: tuple[int, ...] = (0,)
    cases: tuple[Case, ...] = (
        (2, "w_star", "half"),
        (2, "w0_dir", "edge"),
        (2, "random", "split"),
        (3, "mix", "edge"),
        (3, "w_star", "split"),
        (3, "random", "case1"),
        (4, "random", "half"),
        (4, "w0_dir", "split"),
    )
    edge_cases: tuple[Case, ...] = ((2, "w_star", "edge"), (3, "mix", "half"))
    init_quantile: float = 0.999


FULL_CASES: tuple[Case, ...] = tuple(
    (m, wk, bk)
    for m in (2, 3, 4)
    for wk in ("w_star", "w0_dir", "mix", "random")
    for bk in ("none", "half", "edge", "split")
) + tuple((m, "random", "case1") for m in (2, 3, 4))


@dataclass(frozen=True)
class B12Instance:
    """One ``(w^(0), w, b)`` of :class:`LemmaB12Config`, with its label; arrays of shape (m, d) and (m,)."""

    label: str
    w0: np.ndarray
    w: np.ndarray
    b: np.ndarray


def _edge_init(d: int, m: int, quantile: float) -> np.ndarray:
    """The m filters at the edge of the Init Event (see :class:`LemmaB12Config`)."""
    D = init_event_edge(d, quantile)
    w_star = np.full(d, 1 / np.sqrt(d))
    basis = np.linalg.qr(np.column_stack([w_star, np.eye(d)[:, :m]]))[0][:, 1 : m + 1]  # orthonormal, orthogonal to w_*
    return np.array([D / np.sqrt(d) * w_star + np.sqrt(1 - D * D / d) * basis[:, j] for j in range(m)])


def _instance(label: str, w0: np.ndarray, w_star: np.ndarray, wk: str, bk: str, seed: int) -> B12Instance:
    m, d = w0.shape
    a = np.abs(w0 @ w_star)
    v = w0 / np.linalg.norm(w0, axis=1)[:, None]
    weights = {
        "w_star": np.tile(w_star, (m, 1)),
        "w0_dir": v,
        "mix": v + w_star,
        "random": np.random.default_rng(seed + 1000 + m).standard_normal((m, d)),
    }[wk]
    odd = np.arange(m) % 2 == 1
    biases = {
        "none": np.zeros(m),
        "half": -a / 2,
        "edge": -(1 - 1e-9) * a,
        "split": np.where(odd, -2 * a, -(1 - 1e-9) * a),
        "case1": -2 * a,
    }[bk]
    return B12Instance(f"{label}, m = {m}: w = {wk}, b = {bk}", w0, weights, biases)


def b12_instances(cfg: LemmaB12Config) -> tuple[np.ndarray, list[B12Instance]]:
    """``w_*`` and the instances of ``cfg`` (inputs shared by the prediction and the observation)."""
    d = kernel_dimension(cfg.k)
    w_star = np.full(d, 1 / np.sqrt(d))
    out = []
    for s in cfg.init_seeds:
        for m, wk, bk in cfg.cases:
            w0 = np.random.default_rng(s + 100 * m).standard_normal((m, d))
            out.append(_instance(f"init {s}", w0, w_star, wk, bk, s))
    for m, wk, bk in cfg.edge_cases:
        out.append(_instance("edge init", _edge_init(d, m, cfg.init_quantile), w_star, wk, bk, -1))
    return w_star, out


@functools.cache
def _events(cfg: LemmaB12Config) -> tuple[nl.LemmaB12Event, ...]:
    """Lemma B.12's Event A at every instance of :func:`b12_instances`, at the claim's C and the noise level of k."""
    w_star, instances = b12_instances(cfg)
    sigma = tl.noise_sigma(cfg.k)
    return tuple(nl.LemmaB12Event(t.w0, t.w, w_star, t.b, cfg.C, sigma) for t in instances)


@functools.cache
def _quadrature(cfg: LemmaB12Config) -> tuple[nl.LemmaB12Probabilities, ...]:
    """The lemma's exact reduction to Gaussian box probabilities (``theory.local_signal.lemma_b12_reduction``),
    integrated at every instance (:func:`numerics.local_signal.lemma_b12_event_probability`; shared by the prediction
    and the observation's proof checks)."""
    return tuple(nl.lemma_b12_event_probability(event, nodes=cfg.nodes) for event in _events(cfg))


def _predict(cfg: LemmaB12Config) -> list[float]:
    return [res.event for res in _quadrature(cfg)]


def proof_constant(res: nl.LemmaB12Probabilities, w: np.ndarray, w_star: np.ndarray) -> float:
    """The proof's last step: the C' with ``P_{x ~ N(0,1)}[|x| < C' |<v_hat, w_*>|] = q/2`` for ``q = P[E_1 and
    E_2]`` (the largest q that (B.9) allows), ``v_hat`` along ``sum_{j in M(w_*)} w_j``. NaN when g(w_*) = 0 or
    q = 0 (no constant is needed, or none exists)."""
    if res.g_star == 0 or not res.e1_e2 > 0:
        return math.nan
    v = w[list(res.open_on_signal)].sum(axis=0)
    align = abs(float(v @ w_star)) / float(np.linalg.norm(v))
    return float(stats.norm.ppf(0.5 + res.e1_e2 / 4)) / align


def _gram_schmidt_constant(w0: np.ndarray) -> float:
    """``sqrt(d) max |c_ji|`` over the coefficients of ``u_j = v_j + sum_{i<j} c_ji v_i`` (Gram-Schmidt of the unit
    init directions, the proof's (B.7), which says they are O(1/sqrt d))."""
    v = w0 / np.linalg.norm(w0, axis=1)[:, None]
    m, d = v.shape
    u: list[np.ndarray] = []
    worst = 0.0
    for j in range(m):
        uj = v[j] - sum((v[j] @ ui) / (ui @ ui) * ui for ui in u) if u else v[j].copy()
        if j:
            coef = np.linalg.lstsq(v[:j].T, uj - v[j], rcond=None)[0]
            worst = max(worst, float(np.max(np.abs(coef))))
        u.append(uj)
    return math.sqrt(d) * worst


def _observe(cfg: LemmaB12Config, ctx: RunContext) -> Observation:
    w_star, instances = b12_instances(cfg)
    sigma = tl.noise_sigma(cfg.k)
    events, quad = _events(cfg), _quadrature(cfg)
    est = [nl.lemma_b12_event_mc(event, cfg.n, cfg.seed + 2 * i) for i, event in enumerate(events)]
    # the proof's conclusion with its own constants: at C' (proof_constant), P[A] >= q/2 with q = P[E_1 and E_2]
    conclusion, at_proof_c = [], []
    for i, (t, event, res) in enumerate(zip(instances, events, quad)):
        c_proof = proof_constant(res, t.w, w_star)
        if math.isnan(c_proof):
            conclusion.append(None)
            continue
        p, se = nl.lemma_b12_event_mc(dataclasses.replace(event, C=c_proof), cfg.n_proof, cfg.seed + 2 * i + 1)
        at_proof_c.append((res.e1_e2 / 2 - p) / se)
        conclusion.append({"C": c_proof, "q_over_2": res.e1_e2 / 2, "mc": p, "se": se})
    d = kernel_dimension(cfg.k)
    align = [np.abs(t.w0 @ w_star) / np.linalg.norm(t.w0, axis=1) for t in instances]
    pair = [
        max((abs(float(x @ y)) for j, x in enumerate(v) for y in v[j + 1 :]), default=0.0)
        for v in (t.w0 / np.linalg.norm(t.w0, axis=1)[:, None] for t in instances)
    ]
    return event_observation(
        est,
        instances,
        d,
        sigma,
        {
            "quadrature_error": [r.error for r in quad],
            "quadrature_error_in_se": [r.error / se for r, (_, se) in zip(quad, est)],
            "open_on_signal": [list(r.open_on_signal) for r in quad],
            "gates_match": [r.gates_match for r in quad],
            "e1_e2": [r.e1_e2 for r in quad],
            "e1_e2_above_gates_match_beyond_error": [max(0.0, r.e1_e2 - r.gates_match - r.proof_error) for r in quad],
            "proof_lower_bound": [r.proof_lower_bound for r in quad],
            "proof_bound_minus_mc_in_se": [(r.proof_lower_bound - p) / se for r, (p, se) in zip(quad, est)],
            "proof_bound_vacuous_at_C": sum(r.proof_lower_bound <= 0 for r in quad),
            "proof_conclusion": conclusion,
            "proof_conclusion_minus_mc_in_se": at_proof_c,
            "init_event_sqrt_d_alignment_min_max": [
                [math.sqrt(d) * float(a.min()), math.sqrt(d) * float(a.max())] for a in align
            ],
            "init_event_sqrt_d_pair_max": [math.sqrt(d) * p for p in pair],
            "gram_schmidt_sqrt_d_max_coefficient": [_gram_schmidt_constant(t.w0) for t in instances],
            "reported_not_judged": [
                "init_event_sqrt_d_alignment_min_max",
                "init_event_sqrt_d_pair_max",
                "gram_schmidt_sqrt_d_max_coefficient",
                "proof_bound_vacuous_at_C",
                "gates_match",
                "e1_e2",
            ],
        },
        seeds=tuple(cfg.seed + j for j in range(2 * len(instances))),
    )


register(
    Claim(
        id="karp-ch3-lemB12-event-probability",
        source=f"{SRC_B2}, Lemma B.12 (general case 1 <= m <= C) and its proof",
        statement="For m frozen filters w_j^(0), any w and b, Event A = {|g(eps)| >= C sigma |g(w_*)|}, g(x) = sum_j "
        "<w_j, x> 1{|<w_j^(0), x>| + b_j >= 0}, eps ~ N(0, sigma^2 I_d), has probability 1 - sum over gate patterns P "
        "of P[|G_j| >= beta_j (j in P), |G_j| < beta_j (j not in P), |L_P| < C |g(w_*)|] (G_j = <w_j^(0)/|w_j^(0)|, "
        "eps>/sigma, beta_j = max(0, -b_j)/(sigma |w_j^(0)|), L_P = <sum_{j in P} w_j, eps>/sigma): Gaussian box "
        "probabilities of dimension m + 1, computed by Genz's sequential conditioning with a product Gauss-Legendre "
        "rule and an error estimate (Lemma B.11's exact series at m = 1). Monte Carlo of the event itself (k = 1000, "
        "d = 21, C = 1, the CNTK features of each noise row) agrees within 4 SE at m = 2, 3, 4 (random and "
        "edge-of-Init-Event inits; w = w_*, w^(0) directions, w^(0) directions + w_*, random; b = 0, -a/2, -a, split, "
        "-2a with a_j = |<w_j^(0), w_*>|). The proof's explicit steps hold: P[E_1 and E_2] <= P[M(eps) = M(w_*)]; "
        "P[A] >= P[M(eps) = M(w_*)] - P_{N(0,1)}[|x| < C |<v_hat, w_*>|] (the union bound; within 4 SE); and at the "
        "proof's own constant C' (P_{N(0,1)}[|x| < C' |<v_hat, w_*>|] = q/2, q = P[E_1 and E_2]) the Monte Carlo of "
        "P[A] is at least q/2 (within 4 SE). The Init Event's constants D^(l), D^(u), D^(p) and the O(1/sqrt d) of "
        "(B.7) are not specified, so the uniform p_C = prod q_j/2 is not numerically decidable; the realised "
        "sqrt(d)-scaled alignments and Gram-Schmidt coefficients are reported.",
        kind="numeric",
        configs={
            "quick": LemmaB12Config(),
            "full": LemmaB12Config(
                n=2_000_000,
                n_proof=500_000,
                nodes=24,
                init_seeds=(0, 1),
                cases=FULL_CASES,
                edge_cases=tuple((m, wk, bk) for m in (2, 3, 4) for wk, bk in (("w_star", "edge"), ("mix", "half"))),
            ),
        },
        predict=_predict,
        observe=_observe,
        judge=Requiring(
            ZScore(MC_Z),
            at_most=(
                ("proof_bound_minus_mc_in_se", MC_Z),
                ("proof_conclusion_minus_mc_in_se", MC_Z),
                ("e1_e2_above_gates_match_beyond_error", 0.0),
                ("quadrature_error_in_se", 0.1),
            ),
        ),
        note="The prediction is the lemma's exact reduction to Gaussian box probabilities "
        "(theory.local_signal.lemma_b12_reduction: the gate patterns, their thresholds and covariances), integrated "
        "numerically (numerics.local_signal.lemma_b12_probabilities: 3^m centered boxes by Genz's conditioning, "
        "Gauss-Legendre on regular boxes and scrambled Sobol points on singular ones, with an error estimate required "
        f"to be below 0.1 SE of the Monte Carlo): the box probabilities have no closed form for m >= 2 ({DOC}); at "
        "m = 1 the result equals Lemma B.11's exact series (tests). The observation is independent: noise rows drawn "
        "and pushed through the CNTK features. The proof's lower bound at C = 1 is vacuous (negative) at most "
        "instances; the lemma only needs "
        "some C, and at the proof's own C' its conclusion P[A] >= q/2 is checked. Theorem 3.2's infimum over w is a "
        "separate item.",
        post_hoc=(
            PostHoc(
                "quadrature_error_in_se",
                "0.1",
                "exploratory runs of a first version of the quadrature before the claim was written (error estimates "
                "up to 2e-4 on singular instances; the version used has Sobol points there, below 1e-6)",
                "the numerical error must be negligible beside the Monte Carlo's for the z test to test the formula",
            ),
        ),
        resolution=Resolution(
            rel=0.25,
            why="Monte Carlo over 100,000 noise rows per instance (quick): 4 standard errors are 0.1-5 % of the "
            "probabilities 0.07-1, and 23 % of the smallest, 0.0031 (the edge-of-Init-Event filters at w = w_*, both "
            "gates at the signal's edge: a noise row opens a gate with probability about 0.003)",
        ),
    )
)
