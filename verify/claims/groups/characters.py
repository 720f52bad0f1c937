"""Character tables, Theorem 7.9's condition and the class weights of Lemma D.14 (Edelman thesis, App. D.8-D.9).

Predicted values come from :mod:`theory.finite_groups` and :mod:`theory.groups` (exact); observations from the
float64 real irreps and class weights of :mod:`numerics.groups`, or from the exact identities evaluated on the
other side. Table D.1 as printed swaps the labels of the two 4-dim rows of S_5 (a refuted claim).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from numerics.groups import class_weights, real_irreps
from theory import finite_groups as fg
from theory import groups as tg

from ..base import Claim, Erratum, Observation, RunContext, register
from ..judges import PERTURB_REL, PERTURB_TOLS, ExactOrFloat, Judge, RefutedIfDiffers, Verdict, as_float, perturb_value
from .common import SRC, GroupsConfig, to_float

#: Float irreps are compared with the characters for totally real groups up to this order.
MAX_TRACE_ORDER = 120


def _cycle_label(cycle_type: tuple[int, ...]) -> str:
    """The element label (1-based cycle notation) of the permutation with consecutive cycles of these lengths."""
    parts, start = [], 1
    for length in cycle_type:
        if length > 1:
            parts.append("(" + " ".join(str(i) for i in range(start, start + length)) + ")")
        start += length
    return "".join(parts) or "e"


# --- App. D.8 and Table D.1: exact character tables and the real orthogonal irreps


def _traced_groups(cfg: GroupsConfig) -> list[str]:
    return [n for n in cfg.groups if fg.is_totally_real(n) and fg.group(n).order <= MAX_TRACE_ORDER]


def _predict_tables(cfg: GroupsConfig) -> list[Any]:
    """Per group: delta_RR' for every pair of irreps and |G|; the characters at one element per class (totally
    real groups), and the rows of Table D.1 as printed, sorted."""
    values: list[Any] = []
    for name in cfg.groups:
        ct = fg.character_table(name)
        values += [int(r == s) for r in range(ct.n_irreps) for s in range(r, ct.n_irreps)]
        values.append(ct.group.order)
    for name in _traced_groups(cfg):
        values += [v for row in fg.character_table(name).values for v in row]
    return values + [v for row in sorted(tg.TABLE_D1_AS_PRINTED.values()) for v in row]


def _observe_tables(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """Row orthogonality (1/|G|) sum_C |C| chi_R(C) conj(chi_R'(C)) and sum_R d_R^2 from the exact tables; traces
    of the float64 real irreps at one element per class; the rows of Table D.1 as traces of the float64 irreps
    of S_5 at its seven classes, sorted."""
    values: list[Any] = []
    sizes = {}
    for name in cfg.groups:
        ct = fg.character_table(name)
        cs, order = ct.class_sizes, ct.group.order
        for r in range(ct.n_irreps):
            for s in range(r, ct.n_irreps):
                inner = sympy.Add(*[cs[c] * ct.values[r][c] * sympy.conjugate(ct.values[s][c]) for c in range(len(cs))])
                values.append(sympy.expand(inner / order))
        values.append(sum(d * d for d in ct.dims))
        sizes[name] = {"order": order, "dims": list(ct.dims), "classes": len(cs)}
    for name in _traced_groups(cfg):
        G = fg.group(name)
        reps = [cls[0] for cls in G.classes]
        values += [float(np.trace(R[g])) for R in real_irreps(G) for g in reps]
    S5 = fg.group("S5")
    cols = [S5.labels.index(_cycle_label(mu)) for mu in tg.TABLE_D1_CLASSES]
    rows = [[float(np.trace(R[g])) for g in cols] for R in real_irreps(S5)]
    values += [v for row in sorted(rows, key=lambda row: [round(x) for x in row]) for v in row]
    return Observation(values, details={"groups": sizes, "table_d1_recomputed": tg.table_d1_corrected()})


register(
    Claim(
        id="edelman-tabD.1-character-tables",
        source=f"{SRC}, App. D.8 (Lemma D.10 background) and Table D.1",
        statement="Exact character tables satisfy row orthogonality (1/|G|) sum_g chi_R conj(chi_R') = delta and sum_R d_R^2 = |G|; "
        f"for the totally real groups of order <= {MAX_TRACE_ORDER} among them, the float64 real orthogonal irreps have "
        "these characters as traces; the rows of Table D.1 (S_5) are correct as a set.",
        kind="symbolic",
        configs={
            "quick": GroupsConfig(("S3", "S4", "S5", "D4", "D5", "Z2^2", "Z2^3", "A5")),
            "full": GroupsConfig(
                (
                    "S3",
                    "S4",
                    "S5",
                    "S6",
                    "D3",
                    "D4",
                    "D5",
                    "D6",
                    "D7",
                    "D8",
                    "D10",
                    "Z2^2",
                    "Z2^3",
                    "A5",
                    "A4",
                    "Q8",
                    "Z5",
                    "S3xZ2",
                )
            ),
        },
        predict=_predict_tables,
        observe=_observe_tables,
        judge=ExactOrFloat(float_tol=1e-9),
    )
)


def _observe_table_d1(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """chi((12)) of the standard representation (4,1) of S_5, as the trace of its float64 real irrep."""
    G = fg.group("S5")
    r = fg.character_table(G).index("(4,1)")
    g = G.labels.index("(1 2)")
    chi = float(np.trace(real_irreps(G)[r][g]))
    printed = tg.TABLE_D1_AS_PRINTED
    return Observation(
        chi,
        counterexample={
            "representation": "standard (4,1) of S_5",
            "class": "(12)",
            "printed_row_standard": printed["standard"],
            "printed_row_standard_x_sign": printed["standard⊗sign"],
            "observed_chi_standard_12": chi,
            "murnaghan_nakayama": fg.murnaghan_nakayama((4, 1), (2, 1, 1, 1)),
            "permutation_rep_check": "chi_perm((12)) - 1 = 3 - 1 = 2",
            "corrected_table": tg.table_d1_corrected(),
        },
    )


def _predict_table_d1(cfg: GroupsConfig) -> int:
    """chi_standard((12)) as printed in Table D.1."""
    return tg.TABLE_D1_AS_PRINTED["standard"][1]


register(
    Claim(
        id="edelman-tabD.1-labels-as-printed",
        source=f"{SRC}, Table D.1 (S_5)",
        statement="As printed: the standard representation of S_5 has chi((12)) = -2 (and chi((12)(345)) = +1).",
        kind="numeric",
        configs={"quick": GroupsConfig(("S5",)), "full": GroupsConfig(("S5",))},
        predict=_predict_table_d1,
        observe=_observe_table_d1,
        judge=RefutedIfDiffers(1e-9),
        refutes="Table D.1: R_3 (standard) = (4, -2, 0, 1, 0, -1, 1), R_4 (standard⊗sign) = (4, 2, 0, 1, 0, -1, -1)",
        corrected_by="edelman-tabD.1-character-tables",
        erratum=Erratum(
            "notation",
            "class: e, (1 2), (1 2)(3 4), (1 2 3), (1 2 3 4), (1 2 3 4 5), (1 2)(3 4 5) ... R_3(standard): 4, "
            "-2, 0, 1, 0, -1, 1; R_4(standard ⊗ sign): 4, 2, 0, 1, 0, -1, -1 ... Table D.1: Character table "
            "of S_5. [Text of App. D.8.1:] Decomposing this representation into irreducible representations "
            "results in the trivial representation and what is called the standard representation of dimension n "
            "- 1.",
            "Edelman thesis (2024), App. D.8.1 'A Concrete Example: Symmetric Group' (App. D.8, pp. 317-322 in "
            "the table of contents), Table D.1, rows R_3 and R_4",
        ),
    )
)


# --- Theorem 7.9: the condition sum_{R != 1} d_R^1.5 chi_R(C) < 0


@dataclass(frozen=True)
class ConditionValues(Judge):
    """Per group, the observed condition values (one per nontrivial class) agree with the predicted ones within
    ``rtol`` x max(1, |predicted|); the condition (every value < 0) fails exactly for the groups in
    ``config.fails``; each reference value in ``config.reference`` (``"G"``: the largest failing value of G,
    ``"G:class"``: the value at that class) is met within ``ref_rtol`` relative. ``inconclusive`` when the
    configuration, the prediction and the observation do not list the same number of groups (a group left
    unmeasured decides nothing about it)."""

    rtol: float = 1e-9
    ref_rtol: float = 1e-6

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        sizes = (len(config.groups), len(predicted), len(obs.value))
        if len(set(sizes)) > 1:  # a group left unmeasured decides nothing about it
            return "inconclusive", "configured, predicted and observed groups: {}, {} and {}".format(*sizes)
        problems, err = [], 0.0
        for name, p, o in zip(config.groups, predicted, obs.value):
            p_f, o_f = np.array([as_float(x) for x in p]), np.array(o)
            err = max(err, float(np.max(np.abs(p_f - o_f) / np.maximum(1.0, np.abs(p_f)))))
            holds = bool((o_f < 0).all())
            if holds == (name in config.fails):
                problems.append(f"{name}: condition {'holds' if holds else 'fails'}, expected the opposite")
        failing = obs.details["failing_class_values"]
        for label, ref in config.reference:
            name, _, cls = label.partition(":")
            got = failing.get(name, {}).get(cls) if cls else max(failing.get(name, {}).values(), default=None)
            if got is None or not abs(got - ref) <= self.ref_rtol * abs(ref):
                problems.append(f"{label}: failing value {got}, reference {ref}")
        if err > self.rtol:
            problems.append(f"exact vs float values differ by {err:.2e} (tolerance {self.rtol:g})")
        if problems:
            return "fail", "; ".join(problems)
        fail_txt = "; ".join(f"{n}: {', '.join(f'{k} -> {v:+.4f}' for k, v in d.items())}" for n, d in failing.items())
        holding = ", ".join(n for n in config.groups if n not in config.fails)
        return "pass", f"holds for {holding}; fails where expected ({fail_txt}); exact vs float within {err:.1e}"

    def describe(self) -> str:
        return (
            f"exact (theory) vs float64 irreps {self.rtol:g} x max(1, |value|); the condition fails exactly where "
            f"stated; failing class values vs the stated references {self.ref_rtol:g} relative"
        )

    def perturb(self, predicted: Any, obs: Any) -> Any:
        return perturb_value(predicted, PERTURB_REL, PERTURB_TOLS * self.rtol)


def _predict_condition(cfg: GroupsConfig) -> list[list[sympy.Expr]]:
    """sum_{R != 1} d_R^1.5 chi_R(C) for every nontrivial class C of every group (exact)."""
    return [list(tg.condition_values(name)[1:]) for name in cfg.groups]


def _observe_condition(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """sum_{R != 1} d_R^1.5 tr R(g) from the float64 real irreps, at one element g per nontrivial class."""
    values, failing = [], {}
    for name in cfg.groups:
        G = fg.group(name)
        irreps = real_irreps(G)
        reps = [cls[0] for cls in G.classes[1:]]
        vals = [float(sum(R.shape[1] ** 1.5 * np.trace(R[g]) for R in irreps[1:])) for g in reps]
        values.append(vals)
        bad = {G.labels[g]: v for g, v in zip(reps, vals) if v >= 0}
        if bad:
            failing[name] = bad
    return Observation(
        values, details={"failing_class_values": failing, "holds": {n: n not in failing for n in cfg.groups}}
    )


#: The failing values the statement quotes, by class: A_5 at the double transpositions, S_6 at cycle types (5,1)
#: and (4,2) (docs/groups.md). Every quoted group is in both configurations, so the quick run checks all of them.
_CONDITION_REFERENCE = (
    ("A5:(2 3)(4 5)", 0.7880350),
    ("S6:(2 3 4 5 6)", 11.0),
    ("S6:(1 2)(3 4 5 6)", 10.2786405),
)

register(
    Claim(
        id="edelman-thm7.9-condition",
        source=f'{SRC}, Theorem 7.9 hypothesis and App. D.9 ("holds for S_k up to k = 5")',
        statement="sum_{R != triv} d_R^1.5 chi_R(C) < 0 for every nontrivial class C holds for S_3, S_4, S_5, D_n, Z_2^2, Z_2^3 "
        "and fails for A_5 (the class of double transpositions, +0.788) and S_6 (cycle type (5,1) -> +11.0, (4,2) -> +10.2786); values by class representative.",
        kind="numeric",
        configs={
            "quick": GroupsConfig(
                ("S3", "S4", "S5", "D3", "D4", "D5", "D6", "Z2^2", "Z2^3", "A5", "S6"),
                fails=("A5", "S6"),
                reference=_CONDITION_REFERENCE,
            ),
            "full": GroupsConfig(
                ("S3", "S4", "S5", "D3", "D4", "D5", "D6", "D7", "D8", "D10", "Z2^2", "Z2^3", "A5", "S6"),
                fails=("A5", "S6"),
                reference=_CONDITION_REFERENCE,
            ),
        },
        predict=_predict_condition,
        observe=_observe_condition,
        judge=ConditionValues(),
    )
)


# --- Lemma D.14: the class weights tau


@dataclass(frozen=True)
class TauWeights(ExactOrFloat):
    """:class:`ExactOrFloat`, and every tau_C > 0, and each reference value ``config.reference`` (``"G:class"``)
    is met within ``ref_rtol`` x max(|reference|, ``ref_floor``) + ``ref_atol``."""

    ref_rtol: float = 1e-5
    ref_floor: float = 1e-3
    ref_atol: float = 5e-7

    def __call__(self, predicted: Any, obs: Any, config: Any = None) -> tuple[Verdict, str]:
        verdict, reason = super().__call__(predicted, obs, config)
        problems = [f"{n}: a tau_C is not positive" for n, ok in obs.details["all_positive"].items() if not ok]
        problems += [f"{n}: {why}" for n, why in obs.details.get("class_weights_refused", {}).items()]
        for label, ref in config.reference:
            name, _, cls = label.partition(":")
            got = obs.details["tau"][name][cls]
            if not abs(got - ref) <= self.ref_rtol * max(abs(ref), self.ref_floor) + self.ref_atol:
                problems.append(f"tau {label} = {got:.6f}, reference {ref}")
        if verdict != "pass" or problems:
            return "fail", "; ".join([reason, *problems])
        return "pass", f"{reason}; tau > 0 and matches the reference values"

    def describe(self) -> str:
        return (
            f"{super().describe()}; tau > 0; reference tau values within {self.ref_rtol:g} x max(|tau|, "
            f"{self.ref_floor:g}) + {self.ref_atol:g}"
        )


def _predict_tau(cfg: GroupsConfig) -> list[sympy.Expr]:
    """Per group: sum_{C != e} |C| tau_C = 1; kappa_R/sqrt(d_R) = |G|/S for every nontrivial R; the float class-weight
    array has rows summing to 1/|G|^2 (smallest and largest row sum) and weight 0 on the correct label."""
    values: list[sympy.Expr] = []
    for name in cfg.groups:
        ct = fg.character_table(name)
        order = ct.group.order
        values.append(sympy.Integer(1))
        values += [order / tg.s_sum(name)] * (ct.n_irreps - 1)
        values += [sympy.Rational(1, order**2)] * 2 + [sympy.Integer(0)]
    return values


def _observe_tau(cfg: GroupsConfig, ctx: RunContext) -> Observation:
    """sum |C| tau_C and kappa_R/sqrt(d_R) from tau (Lemma D.14) and kappa (Lemma D.11), exact; the float64
    class-weight array of numerics.groups.class_weights (row sums, weight on the correct label). A tau that
    class_weights refuses (sum |C| tau_C != 1, or a negative entry) gives NaN for those three values and the refusal
    in ``details["class_weights_refused"]``: the claim fails on a wrong tau instead of stopping inconclusive."""
    values: list[Any] = []
    taus, refused = {}, {}
    for name in cfg.groups:
        G = fg.group(name)
        ct = fg.character_table(G)
        t = tg.tau(G)
        k = tg.kappa(G)
        values.append(sympy.radsimp(sum(ct.class_sizes[c] * t[c] for c in range(1, len(t)))))
        values += [sympy.radsimp(k[r] / sympy.sqrt(ct.dims[r])) for r in range(1, ct.n_irreps)]
        try:
            Q = class_weights(G, t)
        except ValueError as exc:  # a tau off its normalization, or negative: the check fails, it does not crash
            if type(exc) is not ValueError:  # an input or memory error of numerics.groups: not about tau
                raise
            refused[name] = str(exc)
            values += [float("nan")] * 3
        else:
            rows = Q.sum(1)
            labels = np.asarray(G.table).reshape(-1)
            values += [float(rows.min()), float(rows.max()), float(np.abs(Q[np.arange(len(labels)), labels]).max())]
        taus[name] = {ct.class_labels[c]: to_float(t[c]) for c in range(1, len(t))}
    return Observation(
        values,
        details={
            "tau": taus,
            "all_positive": {n: all(v > 0 for v in taus[n].values()) for n in cfg.groups},
            "class_weights_refused": refused,
        },
    )


_TAU_REFERENCE = (
    ("S3:(2 3)", 0.150221),
    ("S3:(1 2 3)", 0.274668),
    ("S4:(1 2)(3 4)", 0.098733),
    ("S4:(3 4)", 0.026431),
    ("S5:(2 3)(4 5)", 0.022768),
    ("S5:(1 2 3 4 5)", 0.001144),
)

register(
    Claim(
        id="edelman-lemD.14-tau",
        source=f"{SRC}, Lemma D.14 (corrected normalization, docs/groups.md)",
        statement="tau_C = -sum_{R != triv} d_R^1.5 chi_R(C) / S (S = sum d_R^2.5) satisfies sum_{C != e} |C| tau_C = 1 and makes "
        "kappa_R/sqrt(d_R) = |G|/S for every nontrivial R; tau > 0 where the condition holds.",
        kind="symbolic",
        configs={
            "quick": GroupsConfig(("S3", "S4", "S5", "D4", "D5", "Z2^3"), reference=_TAU_REFERENCE),
            "full": GroupsConfig(
                ("S3", "S4", "S5", "D3", "D4", "D5", "D6", "D7", "D8", "D10", "Z2^2", "Z2^3"), reference=_TAU_REFERENCE
            ),
        },
        predict=_predict_tau,
        observe=_observe_tau,
        judge=TauWeights(float_tol=1e-15),
    )
)
