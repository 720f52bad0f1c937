"""The maximum margin of Theorem 7.9, its construction (Lemmas D.15-D.16), a certificate that brackets it without
its closed form (``docs/certificates.md``), the single-neuron maximum (Lemmas D.11-D.13), groups outside the
condition (App. D.9.2) and Z_p outside the theorem (Edelman thesis, Ch. 7).

Predicted values come from :mod:`theory.groups` (exact) and :mod:`theory.modular`; observations from the
character-level LP, float64 constructions and multi-start single-neuron optimisation of :mod:`numerics`.
Lemma D.11/D.13 as printed miss the factor 2 of the cross term (a refuted claim, ``docs/groups.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from numerics.certificates import certify_group
from numerics.groups import GroupTask, character_lp, class_weights, construction_network, irrep_power, real_irreps
from numerics.margins import HomogeneousNetwork, evaluate, iter_logits
from numerics.single_neuron import maximize_single_neuron
from theory import finite_groups as fg
from theory import groups as tg
from theory import modular as tm

from ..base import Claim, Erratum, Observation, RunContext, register
from ..judges import (
    CertifiedBracket,
    ExactOrFloat,
    MaxRelEach,
    RefutedIfDiffers,
    RejectsWrongGamma,
    RelativeStepJudge,
    Requiring,
    Verdict,
    as_floats,
)
from .common import SRC, GroupsConfig, to_float

# --- Theorem 7.9 and App. D.9.2: the closed form equals the character-level LP


def _predict_closed(cfg: GroupsConfig) -> list[sympy.Expr]:
    """gamma*(G) = 2 / (3 sqrt(3|G|) sum_{R != 1} d_R^2.5) for every group (Theorem 7.9)."""
    return [tg.max_margin(name) for name in cfg.groups]


def _observe_lp(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """The character-level LP (HiGHS): its primal and dual values; the reference table of docs/groups.md."""
    res = [character_lp(name) for name in cfg.groups]
    reference = dict(cfg.reference)
    return Observation(
        {
            "LP primal": [r.value for r in res],
            "LP dual": [r.dual_value for r in res],
            "reference table": [reference[name] for name in cfg.groups],
        },
        details={"groups": list(cfg.groups), "budgets": {n: r.budgets.tolist() for n, r in zip(cfg.groups, res)}},
    )


_GAMMA_TABLE = (
    ("S3", 0.0236049693104907),
    ("Z2^2", 0.0641500299099585),
    ("D4", 0.01571965515024513),
    ("Z2^3", 0.019440394783993478),
    ("D5", 0.009884603318331946),
    ("D6", 0.007762566292235996),
    ("D7", 0.0057243004247847055),
    ("D8", 0.004818344183729939),
    ("D10", 0.0033583679771241166),
    ("S4", 0.0020766479960481195),
    ("S5", 0.00013259774900242882),
)

register(
    Claim(
        id="edelman-thm7.9-margin",
        source=f"{SRC}, Theorem 7.9 and App. D.9.2 (LP form, docs/groups.md)",
        statement="Where the condition holds, gamma*(G) = 2 / (3 sqrt(3|G|) sum_{R != triv} d_R^2.5) equals the value of the "
        "character-level LP max_s min_C sum_R s_R d_R^-1/2 (1 - chi_R(C)/d_R) (times 2 (3|G|)^-3/2) and the reference "
        "table of docs/groups.md.",
        kind="convex",
        configs={
            "quick": GroupsConfig(("S3", "S4", "S5", "D4", "D5", "Z2^2", "Z2^3"), reference=_GAMMA_TABLE),
            "full": GroupsConfig(tuple(n for n, _ in _GAMMA_TABLE), reference=_GAMMA_TABLE),
        },
        predict=_predict_closed,
        observe=_observe_lp,
        judge=MaxRelEach((("LP primal", 1e-9), ("LP dual", 1e-9), ("reference table", 1e-12))),
    )
)


# --- Lemmas D.15-D.16: the construction with 2 sum d_R^3 neurons


def _incorrect_logit_range(net: HomogeneousNetwork, task: GroupTask) -> tuple[float, float]:
    """The smallest and the largest incorrect logit f(a, b)[c], c != ab, over every point (a, b) of ``task``."""
    lo, hi = np.inf, -np.inf
    for _, _, labels, F in iter_logits(net, task):
        wrong = np.delete(F, labels + F.shape[1] * np.arange(F.shape[0]))
        lo, hi = min(lo, float(wrong.min())), max(hi, float(wrong.max()))
    return lo, hi


def _observe_construction(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """Float64 forward pass of the construction over all |G|^2 points, each measurement on the scale of gamma*:
    the normalized margin; gamma* x max/min margin (every point on the margin); gamma* x ||theta||^3 (= 1);
    -|G| x the smallest and -|G| x the largest incorrect logit over all points and wrong labels (both = gamma*:
    every incorrect logit is -2/(S (3|G|)^1.5)); and gamma* x (1 + the within-point incorrect-logit spread /
    margin)."""
    names = (
        "normalized margin",
        "margin span",
        "norm power",
        "incorrect logit (smallest)",
        "incorrect logit (largest)",
        "incorrect-logit spread",
    )
    parts: dict[str, list[float]] = {k: [] for k in names}
    widths, min_widths = [], []
    for name in cfg.groups:
        G = fg.group(name)
        gamma = to_float(tg.max_margin(G))
        net = construction_network(G)
        task = GroupTask(G)
        rep = evaluate(net, task)
        lo, hi = _incorrect_logit_range(net, task)
        parts["normalized margin"].append(rep.normalized_margin)
        parts["margin span"].append(gamma * rep.max_margin / rep.min_margin)
        parts["norm power"].append(gamma * rep.norm_power)
        parts["incorrect logit (smallest)"].append(-G.order * lo)
        parts["incorrect logit (largest)"].append(-G.order * hi)
        parts["incorrect-logit spread"].append(gamma * (1 + rep.wrong_logit_spread / rep.min_margin))
        widths.append(net.width)
        min_widths.append(tg.min_width(G))
    return Observation(
        parts,
        details={
            "groups": list(cfg.groups),
            "width": widths,
            "min_width": min_widths,
            "width_is_2_sum_d_cubed": widths == min_widths,
        },
    )


register(
    Claim(
        id="edelman-lemD.15-construction",
        source=f"{SRC}, Lemmas D.15-D.16 (corrected constants, docs/groups.md)",
        statement="The network with 2 d_R^3 neurons per nontrivial irrep (u = c R_ij, v = +-c R_jk, w = +-c R_ik, "
        "c_R^3 = d_R^-1/2/(2S) (d_R/(3|G|))^1.5) has ||theta||_{2,3}^3 = 1, every point on the margin, all incorrect "
        "logits equal to -2/(S (3|G|)^1.5), and normalized margin gamma*(G).",
        kind="numeric",
        configs={
            "quick": GroupsConfig(("S3", "S4", "D4", "D5", "Z2^3")),
            "full": GroupsConfig(("S3", "S4", "S5", "D4", "D5", "D6", "Z2^3")),
        },
        predict=_predict_closed,
        observe=_observe_construction,
        judge=Requiring(
            MaxRelEach(
                (
                    ("normalized margin", 1e-10),
                    ("margin span", 1e-10),
                    ("norm power", 1e-10),
                    ("incorrect logit (smallest)", 1e-10),
                    ("incorrect logit (largest)", 1e-10),
                    ("incorrect-logit spread", 1e-10),
                )
            ),
            ("width_is_2_sum_d_cubed",),
        ),
    )
)


# --- Theorem 7.9 by a certificate that uses no closed form (docs/certificates.md)


@dataclass(frozen=True)
class CertificateConfig:
    """Groups of the certificate, multi-start count of the heuristic upper value, and the relative errors of the
    wrong gammas fed to the negative control."""

    groups: tuple[str, ...]
    n_starts: int = 8
    deltas: tuple[float, ...] = (-1e-4, 1e-4)


def _observe_certificate(cfg: CertificateConfig, ctx: RunContext) -> Observation:
    """Per group: :func:`numerics.certificates.certify_group` (the construction with the character LP's budgets by
    forward pass; multi-start and SOS bounds on the single-neuron maximum under the LP's dual tau)."""
    per_case, uppers = [], []
    for name in cfg.groups:
        cert = certify_group(name, n_starts=cfg.n_starts)
        uppers.append(cert.upper_rigorous)
        per_case.append({"case": name, "group": name, **cert.summary()})
    return Observation(uppers, details={"per_case": per_case}, seeds=(0,))


register(
    Claim(
        id="edelman-thm7.9-certificate",
        source=f"{SRC}, Theorem 7.9 via Lemmas 7.2, 7.5 (max-min duality; docs/certificates.md)",
        statement="gamma*(G) is bracketed without its closed form: the construction of Lemmas D.15-D.16 with the character "
        "LP's budgets (float64 forward pass over all |G|^2 inputs) from below, and from above the maximum over all unit "
        "neurons of the single-neuron margin under the LP's dual class weights tau, bounded rigorously by a "
        "sum-of-squares relaxation (blocks of left x right translations by an abelian subgroup); both equal gamma*(G).",
        kind="convex",
        configs={
            "quick": CertificateConfig(("S3", "Z2^3")),
            "full": CertificateConfig(("S3", "D4", "D5", "Z2^3"), n_starts=20),
        },
        predict=_predict_closed,
        observe=_observe_certificate,
        judge=CertifiedBracket(1e-6),
    )
)


def _wrong_gammas(cfg: CertificateConfig) -> list[sympy.Expr]:
    """gamma*(G) (1 + delta) for every group and every delta: deliberately wrong predictions."""
    return [tg.max_margin(name) * (1 + sympy.nsimplify(d)) for name in cfg.groups for d in cfg.deltas]


def _observe_intervals(cfg: CertificateConfig, ctx: RunContext) -> Observation:
    """The certified interval [lower, rigorous upper] (and the heuristic value) of every group."""
    certs = [certify_group(name, n_starts=cfg.n_starts) for name in cfg.groups]
    return Observation(
        [[c.lower, c.upper_rigorous] for c in certs],
        details={
            "groups": list(cfg.groups),
            "intervals": [[c.lower, c.upper_rigorous, c.upper_heuristic] for c in certs],
            "deltas": list(cfg.deltas),
        },
    )


register(
    Claim(
        id="edelman-thm7.9-certificate-wrong-gamma",
        insensitive="a negative control: the prediction is the pair of deliberately wrong gammas, off gamma* by 1e-4 "
        "relative, that the certificate must reject; moved by any amount up to 100 % they stay wrong and are rejected, "
        "so no error of the prediction changes the verdict (measured entry by entry)",
        source=f"{SRC}, Theorem 7.9 (negative control of edelman-thm7.9-certificate; docs/certificates.md)",
        statement="Negative control: the certificate rejects gamma*(G)(1 - 1e-4) (the construction's forward-pass margin is "
        "above it) and gamma*(G)(1 + 1e-4) (the rigorous SOS bound is below it).",
        kind="convex",
        configs={
            "quick": CertificateConfig(("S3",)),
            "full": CertificateConfig(("S3", "D4", "D5", "Z2^3"), n_starts=20),
        },
        predict=_wrong_gammas,
        observe=_observe_intervals,
        judge=RejectsWrongGamma(1e-6),
    )
)


# --- Lemmas D.11-D.13: the single-neuron maximum under the class weights tau


def _coefficients(vec: np.ndarray, R: np.ndarray) -> np.ndarray:
    """alpha_R = (d_R/|G|) sum_g x(g) R(g) (the coefficient form of a neuron, App. D.9)."""
    return (R.shape[1] / R.shape[0]) * np.einsum("g,gij->ij", vec, R)


def _single_neuron(name: str, n_starts: int, seed: int, class_tau: list[float] | None = None) -> dict[str, Any]:
    """Maximize the class-weighted margin of one unit neuron on G (multi-start L-BFGS) and describe the maximizer:
    its irrep purity, the singular values of its coefficient matrices and cos(alpha beta, gamma)."""
    G = fg.group(name)
    res = maximize_single_neuron(GroupTask(G), 2, Q=class_weights(G, class_tau), n_starts=n_starts, seed=seed)
    U, w = res.network.U[0], res.network.W[0]
    blocks = np.stack([U[0], U[1], w])
    power = irrep_power(blocks, G)
    purity = power.max(-1) / power.sum(-1)
    r = int(power.sum(0).argmax())
    R = real_irreps(G)[r]
    d = R.shape[1]
    alpha, beta, gamma = (_coefficients(x, R) for x in blocks)
    sv = [np.linalg.svd(M, compute_uv=False).tolist() for M in (alpha, beta, gamma)]
    ab = alpha @ beta
    cos = float(np.sum(ab * gamma) / (np.linalg.norm(ab) * np.linalg.norm(gamma)))
    return {
        "group": name,
        "value": res.value,
        "success": res.success,
        "n_at_best": res.n_at_best,
        "irrep": fg.character_table(G).names[r],
        "d_R": d,
        "purity": purity.tolist(),
        "singular_values": sv,
        "expected_singular_value": float(np.sqrt(d / (3 * G.order))),
        "cos_alphabeta_gamma": cos,
        "block_norms_sq": (blocks**2).sum(1).tolist(),
        "u": U[0].tolist(),
        "v": U[1].tolist(),
        "w": w.tolist(),
    }


@dataclass(frozen=True)
class SingleNeuronOptimum(RelativeStepJudge):
    """The numerical single-neuron maximum equals the prediction within ``rtol`` (relative), and every maximizer
    lies in one irrep (block purity >= 1 - ``purity_tol``) with rank-1 coefficient matrices of singular value
    t = sqrt(d_R/(3|G|)) (within ``sv_rtol`` x t, the others below it) and gamma_R parallel to alpha_R beta_R
    (cosine >= 1 - ``cos_tol``)."""

    rtol: float = 1e-8
    purity_tol: float = 1e-6
    sv_rtol: float = 1e-5
    cos_tol: float = 1e-8

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        pred, got = as_floats(predicted), as_floats(obs.value)
        err = float(np.max(np.abs(got - pred) / pred))
        problems = [] if err <= self.rtol else [f"max relative error {err:.1e} (tolerance {self.rtol:g})"]
        for r in obs.details["per_group"]:
            if min(r["purity"]) < 1 - self.purity_tol:
                problems.append(f"{r['group']}: purity {min(r['purity']):.3g}")
            sv, t = np.array(r["singular_values"]), r["expected_singular_value"]
            if np.abs(sv[:, 0] - t).max() > self.sv_rtol * t or (
                sv.shape[1] > 1 and sv[:, 1:].max() > self.sv_rtol * t
            ):
                problems.append(f"{r['group']}: coefficient singular values {sv.round(6).tolist()}")
            if r["cos_alphabeta_gamma"] < 1 - self.cos_tol:
                problems.append(f"{r['group']}: cos(alpha beta, gamma) = {r['cos_alphabeta_gamma']}")
        irreps = ", ".join(f"{r['group']}: {r['irrep']}" for r in obs.details["per_group"])
        text = (
            f"max relative error {err:.1e}; maximizers in one irrep ({irreps}), rank-1 coefficients with singular "
            "value sqrt(d/(3|G|)), gamma_R parallel to alpha_R beta_R"
        )
        return ("fail", text + "; " + "; ".join(problems)) if problems else ("pass", text)

    def describe(self) -> str:
        return (
            f"value relative {self.rtol:g}; purity >= 1 - {self.purity_tol:g}; singular values {self.sv_rtol:g} "
            f"relative; cosine >= 1 - {self.cos_tol:g}"
        )


def _predict_single_neuron(cfg: GroupsConfig) -> list[sympy.Expr]:
    """2/(3 sqrt3 |G|^1.5) max_R kappa_R/sqrt(d_R) under the tau of Lemma D.14 (Lemma D.13, corrected)."""
    return [tg.single_neuron_max(name) for name in cfg.groups]


def _observe_single_neuron(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """The multi-start single-neuron maximum per group and the structure of its maximizer."""
    runs = [_single_neuron(name, cfg.n_starts, cfg.seed) for name in cfg.groups]
    slim = [{k: v for k, v in r.items() if k not in ("u", "v", "w")} for r in runs]
    return Observation([r["value"] for r in runs], details={"per_group": slim})


register(
    Claim(
        id="edelman-lemD.13-single-neuron",
        source=f"{SRC}, Lemmas D.11-D.13 (corrected factor 2, docs/groups.md)",
        statement="Under the class weights tau of Lemma D.14, max over unit neurons of E[psi'] = 2/(3 sqrt3 |G|^1.5) "
        "max_R kappa_R/sqrt(d_R) (which equals gamma*(G) because kappa_R/sqrt(d_R) = |G|/S, checked by "
        "edelman-lemD.14-tau); a maximizer lies in one nontrivial irrep with rank-1 coefficient matrices "
        "alpha = t x y^T, beta = t y z^T, gamma = t x z^T, t = sqrt(d_R/(3|G|)).",
        kind="numeric",
        configs={
            "quick": GroupsConfig(("S3", "S4"), n_starts=6),
            "full": GroupsConfig(("S3", "S4", "D4", "D5", "Z2^3"), n_starts=20),
        },
        predict=_predict_single_neuron,
        observe=_observe_single_neuron,
        judge=SingleNeuronOptimum(),
    )
)


def _predict_d13_printed(cfg: GroupsConfig) -> sympy.Expr:
    """Lemma D.13 as printed: 1/(3 sqrt3 |G|^1.5) max_R kappa_R/sqrt(d_R)."""
    return tg.single_neuron_max_as_printed(cfg.groups[0])


def _observe_d13_printed(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """The multi-start single-neuron maximum; the maximizing neuron is the counterexample."""
    name = cfg.groups[0]
    r = _single_neuron(name, cfg.n_starts, cfg.seed)
    return Observation(
        r["value"],
        counterexample={
            "group": name,
            "printed_max": to_float(tg.single_neuron_max_as_printed(name)),
            "observed_value": r["value"],
            "corrected_max": to_float(tg.single_neuron_max(name)),
            "irrep": r["irrep"],
            "neuron": {"u": r["u"], "v": r["v"], "w": r["w"]},
            "why": "E[(u(a)+v(b))^2 w(c)] has the cross term 2 u(a) v(b) w(c); Lemma D.11 drops the 2",
        },
    )


register(
    Claim(
        id="edelman-lemD.13-single-neuron-as-printed",
        source=f"{SRC}, Lemma D.11 and Lemma D.13 as printed",
        statement="As printed: max over unit neurons of E[psi'] = 1/(3 sqrt3 |G|^1.5) max_R kappa_R/sqrt(d_R).",
        kind="numeric",
        configs={"quick": GroupsConfig(("S3",), n_starts=4), "full": GroupsConfig(("S4",), n_starts=10)},
        predict=_predict_d13_printed,
        observe=_observe_d13_printed,
        judge=RefutedIfDiffers(1e-6),
        refutes="E[psi'] = sum_R kappa_R tr(alpha beta gamma^T)/d_R^2 and max = (1/(3 sqrt3 |G|^{3/2})) max_R kappa_R/sqrt(d_R)",
        corrected_by="edelman-lemD.13-single-neuron",
        erratum=Erratum(
            "substantive",
            "[Lemma D.11:] Then the weighted margin can be simplified as sum_{m=2}^K (1 - sum_{n=2}^K tau_{C_n} "
            "|C_n| chi_{R_m}(C_n)/d_{R_m}) tr(alpha_{R_m} beta_{R_m} gamma_{R_m}^T)/d_{R_m}^2. [Its proof:] "
            "Consider one term E_{a,b}[alpha_i beta_j gamma_k rho_i(a) rho_j(b) rho_k(a o b o c)] in the "
            "expansion of the product ... [Lemma D.13:] In this case, the maximum value attained is 1/(3 sqrt(3) "
            "|G|^{3/2}) max_{m=2,...,K} 1/sqrt(d_{R_m}) [1 - sum_{n=2}^K tau_{C_n} |C_n| "
            "chi_{R_m}(C_n)/d_{R_m}].",
            "Edelman thesis (2024), App. D.9 (pp. 322-339 in the table of contents), Lemma D.11 (Eq. D.13) with "
            "its proof, and Lemma D.13",
        ),
    )
)


# --- App. D.9.2: A_5 and S_6, where Theorem 7.9's condition fails


@dataclass(frozen=True)
class SupportConfig:
    """A group outside Thm 7.9's condition and the support (used irreps, margin classes) of its game (App. D.9.2);
    ``reference`` is the value quoted in the statement (docs/groups.md)."""

    group: str
    irreps: tuple[int, ...]
    classes: tuple[int, ...]
    reference: float
    neuron_level: bool = True
    n_starts: int = 4


#: Relative tolerance of "tight" for an irrep's payoff against the LP's dual value, set before the payoffs were
#: computed; they came out within 2e-16 of the dual value for the tight irreps, and the next irrep is 7 % (A_5) and
#: 17 % (S_6) below it.
SUPPORT_RTOL = 1e-7


def _predict_game(cfg: SupportConfig) -> sympy.Expr:
    """The exact value of the character game on the given support (theory.groups.game_value_on_support)."""
    return tg.game_value_on_support(cfg.group, cfg.irreps, cfg.classes)[0]


def _observe_game(cfg: SupportConfig, ctx: RunContext) -> Observation:
    """The character LP (primal, dual); at neuron level the construction with the exact budgets (a lower bound),
    the numerical single-neuron maximum under the dual tau (an upper bound) and Lemma D.13's exact value under it.
    Theorem 7.9's closed form must be refused, and plugging in anyway gives less than gamma*. The configured
    support must be an optimal one, checked without relying on which optimal corner the solver returns (the S_6
    game has several optimal irrep sets: (4,1,1) can be swapped for (3,1,1,1)): the LP's margin classes are the
    configured ones, and every configured irrep is tight under the LP's dual, (A p)_R = the dual value (complementary
    slackness: an irrep any optimal s uses is tight); the irreps this solver used are reported."""
    G = fg.group(cfg.group)
    ct = fg.character_table(G)
    lp = character_lp(G)
    parts: dict[str, float] = {"LP primal": lp.value, "LP dual": lp.dual_value, "reference value": cfg.reference}
    details: dict[str, Any] = {
        "used_irreps": list(lp.used_irreps),
        "used_irrep_names": [ct.names[r] for r in lp.used_irreps],
        "configured_irrep_names": [ct.names[r] for r in cfg.irreps],
        "configured_irreps_tight_under_the_lp_dual": bool(
            all(abs(lp.irrep_payoff[r] - lp.dual_value) <= SUPPORT_RTOL * lp.dual_value for r in cfg.irreps)
        ),
        "lp_margin_classes_are_the_configured_ones": sorted(lp.margin_classes) == sorted(cfg.classes),
        "margin_classes": list(lp.margin_classes),
        "budgets": lp.budgets.tolist(),
        "class_tau": lp.class_tau.tolist(),
    }
    try:
        tg.max_margin(G)
        details["closed_form_refused"] = False
    except ValueError as exc:
        details["closed_form_refused"] = True
        details["closed_form_error"] = str(exc)[:200]
    details["naive_closed_form"] = to_float(2 / (3 * sympy.sqrt(3 * G.order) * tg.s_sum(G)))
    details["naive_closed_form_below_gamma"] = details["naive_closed_form"] < lp.value
    if cfg.neuron_level:
        _, budgets, taus = tg.game_value_on_support(G, cfg.irreps, cfg.classes)
        parts["construction"] = evaluate(construction_network(G, budgets=budgets), GroupTask(G)).normalized_margin
        sn = _single_neuron(cfg.group, cfg.n_starts, 0, class_tau=[to_float(t) for t in taus])
        parts["single neuron under the dual tau"] = sn["value"]
        parts["Lemma D.13 under the dual tau"] = to_float(tg.single_neuron_max(G, taus))
        details["dual_single_neuron_irrep"] = sn["irrep"]
    return Observation(parts, details=details)


_GAME_LP = (("LP primal", 1e-9), ("LP dual", 1e-9), ("reference value", 1e-8))
_GAME_NEURONS = (
    ("construction", 1e-10),
    ("single neuron under the dual tau", 1e-8),
    ("Lemma D.13 under the dual tau", 1e-12),
)
_GAME_REQUIRE = (
    "closed_form_refused",
    "naive_closed_form_below_gamma",
    "configured_irreps_tight_under_the_lp_dual",
    "lp_margin_classes_are_the_configured_ones",
)

register(
    Claim(
        id="edelman-D.9.2-A5",
        source=f"{SRC}, App. D.9.2 (general finite groups; corrected normalization, docs/groups.md)",
        statement="A_5 violates Thm 7.9's condition; its max margin is the character game value gamma* = 4.31570898769485e-4 "
        "(the LP's optimum uses irreps 3, 3', 4, not the 5-dim one), certified by the construction with the LP budgets "
        "(lower bound) and by the single-neuron maximum under the dual tau (upper bound).",
        kind="convex",
        configs={
            "quick": SupportConfig("A5", (1, 2, 3), (1, 3, 4), reference=0.000431570898769485),
            "full": SupportConfig("A5", (1, 2, 3), (1, 3, 4), reference=0.000431570898769485, n_starts=12),
        },
        predict=_predict_game,
        observe=_observe_game,
        judge=Requiring(MaxRelEach(_GAME_LP + _GAME_NEURONS), _GAME_REQUIRE),
    )
)

register(
    Claim(
        id="edelman-D.9.2-S6",
        source=f"{SRC}, App. D.9.2 (general finite groups; docs/groups.md)",
        statement="S_6 violates Thm 7.9's condition; its max margin is the character game value gamma* = 7.266303386040882e-06 "
        "(an optimal support, which is not unique: irreps (3,3), (2,1,1,1,1), (4,1,1), each tight under the LP's dual, "
        "(4,1,1) could be swapped for (3,1,1,1); margin classes (4 5 6), (3 4)(5 6), (1 2 3)(4 5 6), the LP's own) — "
        "LP level only, no neuron-level certificate.",
        kind="convex",
        configs={
            "quick": SupportConfig("S6", (3, 5, 8), (2, 3, 9), reference=7.266303386040882e-06, neuron_level=False),
            "full": SupportConfig("S6", (3, 5, 8), (2, 3, 9), reference=7.266303386040882e-06, neuron_level=False),
        },
        predict=_predict_game,
        observe=_observe_game,
        judge=Requiring(MaxRelEach(_GAME_LP), _GAME_REQUIRE),
    )
)


# --- Theorem 7.9's hypothesis against Theorem 7.7: Z_p has no real irreps but the trivial one


@dataclass(frozen=True)
class PrimesConfig:
    """Moduli p at which Z_p is checked."""

    ps: tuple[int, ...]


P = sympy.Symbol("p", positive=True, integer=True)


def _predict_zp(cfg: PrimesConfig) -> list[sympy.Expr]:
    """gamma*(p)/2 (Theorem 7.7's value halved, symbolic p); per p, the exact Frobenius-Schur indicators of the
    nontrivial irreps of Z_p (all 0)."""
    values = [tm.max_margin(P, 2) / 2]
    for p in cfg.ps:
        values += list(fg.character_table(f"Z{p}").indicators[1:])
    return values


def _observe_zp(cfg: PrimesConfig, ctx: RunContext) -> Observation:
    """Thm 7.9's formula with the (p-1)/2 two-dim real rotation irreps (symbolic p); per p, the Frobenius-Schur
    indicators (1/p) sum_g chi_j(g^2) in float from the Cayley table; and whether theory.groups refuses Z_p."""
    S_rot = (P - 1) / 2 * sympy.Integer(2) ** sympy.Rational(5, 2)
    naive = 2 / (3 * sympy.sqrt(3 * P) * S_rot)
    values: list[Any] = [naive]
    indicators, refused = {}, {}
    for p in cfg.ps:
        G = fg.group(f"Z{p}")
        T = np.asarray(G.table)
        sq = T[np.arange(p), np.arange(p)]  # index of g^2 (g = generator^k, so g^2 = 2k mod p)
        chars = np.exp(2j * np.pi * np.outer(np.arange(p), np.arange(p)) / p)  # chi_j(g^k)
        fs = (chars[:, sq].sum(1) / p).real
        indicators[p] = fs.tolist()
        values += [float(x) for x in fs[1:]]
        try:
            tg.max_margin(G)
            refused[p] = False
        except ValueError:
            refused[p] = True
    return Observation(
        values,
        details={
            "fs_indicators_float": indicators,
            "theory_refuses": refused,
            "theory_refuses_every_Zp": all(refused.values()),
            "naive_over_true": {p: float(naive.subs(P, p) / tm.max_margin(p, 2)) for p in cfg.ps},
        },
    )


register(
    Claim(
        id="edelman-thm7.9-not-Zp",
        source=f"{SRC}, Theorem 7.9 hypothesis (real representations) vs Theorem 7.7",
        statement="Z_p (p > 2) is not covered by Thm 7.9: every nontrivial Frobenius-Schur indicator is 0; plugging the "
        "(p-1)/2 two-dim real rotation irreps into Thm 7.9's formula gives exactly gamma*(p)/2 (Thm 7.7's value halved).",
        kind="symbolic",
        configs={"quick": PrimesConfig((3, 5, 7)), "full": PrimesConfig((3, 5, 7, 11, 13))},
        predict=_predict_zp,
        observe=_observe_zp,
        judge=Requiring(ExactOrFloat(float_tol=1e-12), ("theory_refuses_every_Zp",)),
    )
)
