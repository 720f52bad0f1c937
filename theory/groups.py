r"""Edelman thesis Ch. 7, Theorem 7.9 (App. D.8-D.9), exact: max-margin quadratic networks on finite groups.

Network and task: a quadratic network :math:`f(a,b)[c] = \sum_i (u_i[a] + v_i[b])^2 w_i[c]` on all
:math:`|G|^2` pairs :math:`(a,b)\mapsto ab` of a finite group G, normalized by :math:`\|\theta\|_{2,3}^3`.
The groups, character tables and real irreps come from :mod:`theory.finite_groups`; derivations and the
corrected constants are explained in ``docs/groups.md``.

Contents
--------
* Theorem 7.9's condition :math:`\sum_{R\ne1} d_R^{3/2}\chi_R(C) < 0` for every nontrivial class, the class
  weights :math:`\tau_C` (Lemma D.14), :math:`\kappa_R` (Lemma D.11), the single-neuron maximum (Lemma D.13,
  with the factor 2 the thesis omits), the closed form
  :math:`\gamma^*(G) = 2/(3\sqrt{3|G|}\sum_{R\ne1} d_R^{5/2})`, the width :math:`2\sum_{R\ne1}d_R^3`, the
  rank-1 optimal unit neuron and the construction of Lemmas D.15-D.16 with corrected constants.
* App. D.9.2 (groups where the condition fails): the character-level matrix game and its exact value on a
  given support.
* Thesis errata that change a number: Lemma D.11/D.13 missing factor 2
  (:func:`single_neuron_max_as_printed`), Lemma D.15's neuron norm (:func:`lemma_d15_neuron_norm_as_printed`),
  Table D.1 with swapped row labels (:data:`TABLE_D1_AS_PRINTED`).

Hypotheses
----------
Thm 7.9 needs every irrep of G to be real (all Frobenius-Schur indicators +1) and the strict
condition above. Functions that need them raise :class:`ValueError` naming the failing hypothesis:
Z_p (p > 2), A_4 and Q_8 are not totally real; A_5 and S_6 violate the condition (use the
character-level LP of App. D.9.2, ``numerics.groups.character_lp``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy
from sympy import Integer, Rational, sqrt

from theory._checks import InputError, as_number, check_positive_int
from theory._docstrings import fill_doc, sections
from theory.finite_groups import (
    CharacterTable,
    FiniteGroup,
    as_group,
    character_table,
    check_totally_real,
    is_zero,
    murnaghan_nakayama,
)

__all__ = [
    "LEMMA_D11_FACTOR",
    "LEMMA_D11_FACTOR_AS_PRINTED",
    "SOURCE",
    "TABLE_D1_AS_PRINTED",
    "TABLE_D1_CLASSES",
    "GroupConstruction",
    "character_game_matrix",
    "check_condition",
    "condition_holds",
    "condition_values",
    "construction",
    "game_value_on_support",
    "kappa",
    "lemma_d15_neuron_norm_as_printed",
    "max_margin",
    "min_width",
    "optimal_neuron_scale",
    "plancherel_norm",
    "s_sum",
    "single_neuron_max",
    "single_neuron_max_as_printed",
    "table_d1_corrected",
    "tau",
]

SOURCE = "Edelman Thm 7.9"


def _real_table(G: FiniteGroup | str) -> CharacterTable:
    """The character table, after checking Theorem 7.9's first hypothesis (every irrep real)."""
    return check_totally_real(G, source=SOURCE)


#: Shared docstring sections (:func:`theory._docstrings.fill_doc`).
_G = "G : FiniteGroup or str\n    A totally real group."
_DOC = {
    "G": sections(_G),
    "G_weights": sections(
        _G,
        "class_weights : sequence of numbers, optional\n"
        "    :math:`\\tau_C` per class (identity first, unused); default :func:`tau`.",
    ),
    "G_r": sections(_G, "r : int\n    A nontrivial irrep index."),
}


# --------------------------------------------------------------------------------------------
# Theorem 7.9: the condition and the class weights (Lemmas D.11, D.14)
# --------------------------------------------------------------------------------------------


def _d15(d: int) -> sympy.Expr:
    return Integer(d) ** Rational(3, 2)


@fill_doc(_DOC)
def condition_values(G: FiniteGroup | str) -> tuple[sympy.Expr, ...]:
    r"""Exact :math:`\sum_{R\ne1} d_R^{3/2}\chi_R(C)` for every class C (entry 0, the identity class,
    is :math:`\sum_{R\ne1} d_R^{5/2}`); Theorem 7.9 and Lemma D.14. Requires real irreps.

    {{G}}

    Returns
    -------
    tuple of sympy.Expr
        One value per class of ``character_table(G)``.

    Examples
    --------
    >>> from theory.groups import condition_values
    >>> condition_values("S3")
    (1 + 4*sqrt(2), -1, 1 - 2*sqrt(2))
    """
    ct = _real_table(G)
    return tuple(
        sympy.expand(sum(_d15(ct.dims[r]) * ct.values[r][c] for r in range(1, ct.n_irreps)))
        for c in range(len(ct.classes))
    )


def _sign(x: sympy.Expr) -> int:
    if is_zero(x):
        return 0
    return 1 if float(sympy.re(sympy.N(x, 50))) > 0 else -1


@fill_doc(_DOC)
def condition_holds(G: FiniteGroup | str) -> bool:
    r"""Edelman Thm 7.9's condition: :math:`\sum_{R\ne1} d_R^{3/2}\chi_R(C) < 0` for every nontrivial class.

    {{G}}

    Returns
    -------
    bool

    Examples
    --------
    >>> from theory.groups import condition_holds
    >>> condition_holds("S3"), condition_holds("D4xD4")
    (True, False)
    """
    return all(_sign(v) < 0 for v in condition_values(G)[1:])


def check_condition(G: FiniteGroup | str) -> CharacterTable:
    """Raise ValueError naming the classes where Thm 7.9's condition fails (after the reality check).

    Parameters
    ----------
    G : FiniteGroup or str

    Returns
    -------
    CharacterTable
        G's character table, when both hypotheses hold.

    Raises
    ------
    ValueError
        Some irrep is not real, or the condition fails.

    Examples
    --------
    >>> from theory.groups import check_condition
    >>> check_condition("S3").dims
    (1, 1, 2)
    >>> check_condition("D4xD4")
    Traceback (most recent call last):
    ...
    ValueError: Edelman Thm 7.9 condition sum_(R != 1) d_R^1.5 chi_R(C) < 0 fails for D4^2 at class(es) (r^2, r^2) ...
    """
    G = as_group(G)
    ct = _real_table(G)
    vals = condition_values(G)
    bad = [(ct.class_labels[c], vals[c]) for c in range(1, len(vals)) if _sign(vals[c]) >= 0]
    if bad:
        raise ValueError(
            f"{SOURCE} condition sum_(R != 1) d_R^1.5 chi_R(C) < 0 fails for {G.name} at class(es) "
            + ", ".join(f"{lab} (value {float(sympy.N(v)):+.6g})" for lab, v in bad)
            + "; the closed form is invalid there. Use the character-level LP of Edelman App. D.9.2 "
            "(numerics.groups.character_lp)"
        )
    return ct


@fill_doc(_DOC)
def s_sum(G: FiniteGroup | str) -> sympy.Expr:
    r""":math:`S = \sum_{R\ne1} d_R^{5/2}` (Lemma D.14; unrelated to the parity support).

    {{G}}

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.groups import s_sum
    >>> s_sum("S3"), s_sum("Z2^2")
    (1 + 4*sqrt(2), 3)
    """
    ct = _real_table(G)
    return sympy.Add(*[Integer(d) ** Rational(5, 2) for d in ct.dims[1:]])


@fill_doc(_DOC)
def tau(G: FiniteGroup | str) -> tuple[sympy.Expr, ...]:
    r"""Class weights of Lemma D.14 (corrected normalization, ``docs/groups.md``):
    :math:`\tau_C = -\sum_{R\ne1} d_R^{3/2}\chi_R(C)/S` for nontrivial C; entry 0 (identity class) is 0.

    They satisfy :math:`\sum_{C\ne e}|C|\tau_C = 1` for every totally real G; they are all positive iff
    :func:`condition_holds`. No condition check here (a failing condition gives negative entries).

    {{G}}

    Returns
    -------
    tuple of sympy.Expr
        One weight per class of ``character_table(G)``.

    Examples
    --------
    >>> from sympy import expand
    >>> from theory.finite_groups import character_table
    >>> from theory.groups import tau
    >>> t = tau("S3")
    >>> t
    (0, (-1 + 4*sqrt(2))/31, (17 - 6*sqrt(2))/31)
    >>> expand(sum(n * x for n, x in zip(character_table("S3").class_sizes, t)))
    1
    """
    vals = condition_values(G)
    S = s_sum(G)
    return (Integer(0), *tuple(sympy.radsimp(-v / S) for v in vals[1:]))


@fill_doc(_DOC)
def kappa(G: FiniteGroup | str, class_weights: Sequence[object] | None = None) -> tuple[sympy.Expr, ...]:
    r""":math:`\kappa_R = 1 - \sum_{C\ne e}\tau_C|C|\chi_R(C)/d_R` (Lemma D.11) for every irrep
    (entry 0 is the trivial irrep). ``class_weights`` defaults to :func:`tau`.

    Explicit ``class_weights`` (one per class, identity first and unused) must be finite and non-negative:
    :math:`\tau` is a distribution over wrong labels (Lemma D.11 and Lemma 7.5 need :math:`\tau\ge0`).

    {{G_weights}}

    Returns
    -------
    tuple of sympy.Expr
        One value per irrep of ``character_table(G)``.

    Raises
    ------
    ValueError
        A wrong number of weights, a non-number or a negative weight.

    Examples
    --------
    All the weight on the transpositions of S_3 (:math:`3\tau = 1`):

    >>> from theory.groups import kappa
    >>> kappa("S3", [0, "1/3", 0])
    (0, 2, 1)
    >>> kappa("S3", [0, -1, 1])
    Traceback (most recent call last):
    ...
    theory._checks.InputError: class_weights must be non-negative (tau is a distribution over the wrong labels, ...
    """
    ct = _real_table(G)
    t = tau(G) if class_weights is None else _class_weights(class_weights, len(ct.classes))
    if len(t) != len(ct.classes):
        raise InputError(f"need one class weight per class ({len(ct.classes)}), got {len(t)}", param="class_weights")
    sizes = ct.class_sizes
    return tuple(
        sympy.radsimp(
            sympy.expand(1 - sum(t[c] * sizes[c] * ct.values[r][c] for c in range(1, len(sizes))) / ct.dims[r])
        )
        for r in range(ct.n_irreps)
    )


def _class_weights(values: Sequence[object], n_classes: int) -> tuple[sympy.Expr, ...]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InputError(
            f"class_weights must be a sequence of {n_classes} numbers, got {values!r:.80}", param="class_weights"
        )
    t = tuple(as_number(x, "class_weights", symbolic=False) for x in values)
    bad = [(c, x) for c, x in enumerate(t) if c > 0 and (not x.is_real or float(sympy.N(x, 30)) < 0)]
    if bad:
        raise InputError(
            "class_weights must be non-negative (tau is a distribution over the wrong labels, Lemma D.11); got "
            + ", ".join(f"tau[{c}] = {x}" for c, x in bad),
            param="class_weights",
        )
    return t


def _check_irrep_index(r: object, n_irreps: int, what: str) -> int:
    r = check_positive_int(r, "r", minimum=0)
    if not 1 <= r < n_irreps:
        raise InputError(f"{what}: r must be a nontrivial irrep index in 1..{n_irreps - 1}, got r = {r}", param="r")
    return r


# --------------------------------------------------------------------------------------------
# Lemmas D.11-D.13: the class-weighted margin of one neuron and its maximum
# --------------------------------------------------------------------------------------------


def plancherel_norm(G: FiniteGroup | str, coefficients: Sequence[object]) -> sympy.Expr:
    r"""Lemma D.12: the squared norm of :math:`u = \sum_R \sum_{i,j} \alpha_{R,(i,j)} \rho_{R,(i,j)}` (the entries of
    real orthogonal irreps as vectors over G, Lemma D.10) from its coefficient matrices:

    .. math:: \|u\|^2 = \sum_R \frac{|G|}{d_R} \|\alpha_R\|_F^2,

    by the orthogonality relations :math:`\sum_a \rho_i(a)\rho_j(a) = \delta_{ij}|G|/d_R` (Lemma D.10, 1-2). Lemma
    D.12 is this identity for u, v and w summed (Edelman thesis, App. D.9).

    Parameters
    ----------
    G : FiniteGroup or str
        A group whose irreps are all real (``check_totally_real``).
    coefficients : sequence of matrices
        One ``d_R x d_R`` matrix (rows of exact numbers, or a sympy Matrix) per irrep, in the order of
        ``character_table(G)``.

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ValueError
        G has an irrep that is not real; the number or the shapes of the matrices do not match its irreps; an entry
        is not a finite number.

    Examples
    --------
    S3 has irreps of dimensions 1, 1, 2 (|G|/d_R = 6, 6, 3):

    >>> from theory.groups import plancherel_norm
    >>> plancherel_norm("S3", [[[1]], [[0]], [[1, 0], [0, 2]]])
    21
    """
    ct = check_totally_real(G, source="Lemma D.12 (real orthogonal irreps)")
    if isinstance(coefficients, (str, bytes)) or not isinstance(coefficients, (Sequence, sympy.MatrixBase)):
        raise InputError(f"coefficients must be a sequence of matrices, got {coefficients!r:.80}", param="coefficients")
    if len(coefficients) != ct.n_irreps:
        raise InputError(
            f"coefficients needs one matrix per irrep ({ct.n_irreps}), got {len(coefficients)}", param="coefficients"
        )
    total = Integer(0)
    for r, (alpha, d) in enumerate(zip(coefficients, ct.dims)):
        rows = alpha.tolist() if isinstance(alpha, sympy.MatrixBase) else alpha
        if (
            isinstance(rows, (str, bytes))
            or not isinstance(rows, Sequence)
            or len(rows) != d
            or any(isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or len(row) != d for row in rows)
        ):
            raise InputError(f"coefficients[{r}] must be a {d} x {d} matrix, got {alpha!r:.80}", param="coefficients")
        frob = sum((as_number(x, "coefficients") ** 2 for row in rows for x in row), Integer(0))
        total += Rational(ct.group.order, d) * frob
    return sympy.expand(total)


LEMMA_D11_FACTOR = 2
"""Corrected constant of Lemma D.11: E[psi'] = 2 sum_R kappa_R tr(alpha beta gamma^T)/d_R^2 (docs/groups.md)."""
LEMMA_D11_FACTOR_AS_PRINTED = 1
"""The thesis's Lemma D.11 omits the factor 2 of the cross term 2u(a)v(b)w (erratum, docs/groups.md)."""


@fill_doc(_DOC)
def single_neuron_max(G: FiniteGroup | str, class_weights: Sequence[object] | None = None) -> sympy.Expr:
    r"""Lemma D.13 (corrected by the factor 2 of Lemma D.11, ``docs/groups.md``): for class-constant weights :math:`\tau`,

    .. math:: \max_{\|\omega\|\le1}E[\psi'] = \frac{2}{3\sqrt3|G|^{3/2}}\max_{R\ne1}\frac{\kappa_R}{\sqrt{d_R}}.

    ``class_weights`` defaults to :func:`tau` (then the value is :func:`max_margin` when the condition
    holds). By Lemma 7.5 this bounds :math:`\gamma^*` from above for every admissible (non-negative) tau.

    {{G_weights}}

    Returns
    -------
    sympy.Expr

    Examples
    --------
    With the default tau it is the max margin; any other tau gives an upper bound:

    >>> from sympy import expand
    >>> from theory.groups import max_margin, single_neuron_max
    >>> expand(single_neuron_max("S3") - max_margin("S3"))
    0
    >>> single_neuron_max("S3", [0, "1/3", 0]), single_neuron_max("S3", [0, "1/3", 0]) > max_margin("S3")
    (sqrt(2)/27, True)
    """
    G = as_group(G)
    ct = _real_table(G)
    k = kappa(G, class_weights)
    ratios = [sympy.radsimp(k[r] / sqrt(ct.dims[r])) for r in range(1, ct.n_irreps)]
    best = max(ratios, key=lambda x: float(sympy.N(x, 50)))
    return sympy.radsimp(LEMMA_D11_FACTOR * best / (3 * sqrt(3) * Integer(G.order) ** Rational(3, 2)))


def single_neuron_max_as_printed(G: FiniteGroup | str, class_weights: Sequence[object] | None = None) -> sympy.Expr:
    """Erratum record: Lemma D.13 as printed, :math:`(1/(3\\sqrt3|G|^{3/2}))\\max\\kappa_R/\\sqrt{d_R}`,
    half the true single-neuron maximum (erratum, ``docs/groups.md``). Kept so a claim can refute it.

    Parameters
    ----------
    G : FiniteGroup or str
        A totally real group.
    class_weights : sequence of numbers, optional
        As in :func:`single_neuron_max`.

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.groups import single_neuron_max, single_neuron_max_as_printed
    >>> single_neuron_max_as_printed("S3", [0, "1/3", 0]), single_neuron_max("S3", [0, "1/3", 0])
    (sqrt(2)/54, sqrt(2)/27)
    """
    return sympy.radsimp(single_neuron_max(G, class_weights) * LEMMA_D11_FACTOR_AS_PRINTED / LEMMA_D11_FACTOR)


@fill_doc(_DOC)
def lemma_d15_neuron_norm_as_printed(G: FiniteGroup | str, r: int) -> sympy.Expr:
    r"""Erratum record (``docs/groups.md``): Lemma D.15 uses the coefficient :math:`1/\sqrt{3|G|}`, i.e.
    :math:`u = R_{ij}/\sqrt{3|G|}` and likewise v, w. With :math:`\sum_g R_{ij}(g)^2 = |G|/d_R`
    (Lemma D.10) that neuron has norm :math:`\sqrt{3\cdot|G|/(3|G|d_R)} = d_R^{-1/2}`, not 1; a unit
    neuron needs :func:`optimal_neuron_scale` :math:`=\sqrt{d_R/(3|G|)}`.

    {{G_r}}

    Returns
    -------
    sympy.Expr
        :math:`d_R^{-1/2}`.

    Examples
    --------
    The 2-dimensional irrep of S_3: norm :math:`1/\sqrt2`, not 1:

    >>> from theory.groups import lemma_d15_neuron_norm_as_printed
    >>> lemma_d15_neuron_norm_as_printed("S3", 2)
    sqrt(2)/2
    """
    G = as_group(G)
    ct = _real_table(G)
    r = _check_irrep_index(r, ct.n_irreps, "Lemma D.15")
    c2 = Rational(1, 3 * G.order)
    return sqrt(3 * c2 * Rational(G.order, ct.dims[r]))


# --------------------------------------------------------------------------------------------
# Theorem 7.9: the maximum margin and the width
# --------------------------------------------------------------------------------------------


def max_margin(G: FiniteGroup | str) -> sympy.Expr:
    r"""Edelman Thm 7.9: :math:`\gamma^*(G) = 2/(3\sqrt{3|G|}\,\sum_{R\ne1}d_R^{5/2})` (exact).

    Raises
    ------
    ValueError
        If some irrep of G is not real (Z_p, A_4, Q_8) or the condition
        :math:`\sum_{R\ne1}d_R^{3/2}\chi_R(C) < 0` fails for some nontrivial class (A_5, S_6); the message
        names the hypothesis and points to the character LP of App. D.9.2.

    Parameters
    ----------
    G : FiniteGroup or str

    Returns
    -------
    sympy.Expr
        Exact :math:`\gamma^*(G)`.

    Examples
    --------
    S_3 has irreps of dimensions 1, 1, 2, so :math:`\gamma^* = 2/(3\sqrt{18}(1 + 4\sqrt2))`:

    >>> from theory.groups import max_margin
    >>> max_margin("S3")
    (8 - sqrt(2))/279
    >>> max_margin("Q8")
    Traceback (most recent call last):
    ...
    ValueError: Edelman Thm 7.9 assumes every irrep of G is real (Frobenius-Schur indicator +1); Q8 has 2 with ...
    """
    G = as_group(G)
    check_condition(G)
    return sympy.radsimp(2 / (3 * sqrt(3 * G.order) * s_sum(G)))


@fill_doc(_DOC)
def min_width(G: FiniteGroup | str) -> int:
    r"""Width of the construction and of Thm 7.9's hypothesis, :math:`2\sum_{R\ne1}d_R^3`.

    {{G}}

    Returns
    -------
    int

    Examples
    --------
    >>> from theory.groups import min_width
    >>> min_width("S3"), min_width("Z2^2")
    (18, 6)
    """
    ct = _real_table(G)
    return 2 * sum(d**3 for d in ct.dims[1:])


@fill_doc(_DOC)
def optimal_neuron_scale(G: FiniteGroup | str, r: int) -> sympy.Expr:
    r"""The factor :math:`t = \sqrt{d_R/(3|G|)}` of the rank-1 optimal unit neuron (equality case of Lemma D.13, ``docs/groups.md``):
    :math:`u(g)=t\,x^\top R(g)y,\ v(g)=t\,y^\top R(g)z,\ w(g)=t\,x^\top R(g)z` (x, y, z unit vectors).

    {{G_r}}

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> from theory.groups import optimal_neuron_scale
    >>> optimal_neuron_scale("S3", 2)  # sqrt(2/18)
    1/3
    """
    G = as_group(G)
    ct = _real_table(G)
    r = _check_irrep_index(r, ct.n_irreps, "optimal neurons live in a nontrivial irrep")
    return sqrt(Rational(ct.dims[r], 3 * G.order))


# --------------------------------------------------------------------------------------------
# Lemmas D.15-D.16: the max-margin construction
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupConstruction:
    r"""The max-margin network of Lemmas D.15-D.16 (corrected constants, ``docs/groups.md``), as exact scalars.

    For each nontrivial irrep R and (i,j,k) in [d_R]^3 two neurons
    :math:`u = c_R R_{ij},\ v = \pm c_R R_{jk},\ w = \pm c_R R_{ik}`, with
    :math:`c_R = \lambda_R\sqrt{d_R/(3|G|)}` and :math:`\lambda_R^3 = s_R/(2d_R^3)`; the default budgets
    :math:`s_R = d_R^{5/2}/S` give :math:`\lambda_R^3 = d_R^{-1/2}/(2S)`.

    Attributes
    ----------
    group : FiniteGroup
    budgets : tuple of sympy.Expr
        :math:`s_R` per irrep (entry 0, trivial, is 0); they sum to 1 = :math:`\|\theta\|_{2,3}^3`.
    coefficients : tuple of sympy.Expr
        :math:`c_R` per irrep (0 for the trivial irrep and unused irreps).
    width : int
        Total width (>= number of active neurons; the rest is zero padding).

    Examples
    --------
    Every nontrivial class has the same margin, and the normalized margin is :func:`max_margin`:

    >>> from theory.groups import construction, max_margin
    >>> c = construction("S3")
    >>> c.width, c.norm_power, c.class_margins()
    (18, 1, (0, (8 - sqrt(2))/279, (8 - sqrt(2))/279))
    >>> c.normalized_margin == max_margin("S3")
    True
    """

    group: FiniteGroup
    budgets: tuple[sympy.Expr, ...]
    coefficients: tuple[sympy.Expr, ...]
    width: int

    @property
    def n_active(self) -> int:
        ct = character_table(self.group)
        return 2 * sum(ct.dims[r] ** 3 for r in range(1, ct.n_irreps) if not self.budgets[r].is_zero)

    @property
    def norm_power(self) -> sympy.Expr:
        return sympy.radsimp(sympy.Add(*self.budgets))

    def logit(self, a: int, b: int, c: int) -> sympy.Expr:
        r""":math:`f(a,b)[c] = \sum_R 4c_R^3\chi_R(abc^{-1})` (exact)."""
        G = self.group
        ct = character_table(G)
        g = G.table[G.table[a][b]][G.inverse[c]]
        return sympy.radsimp(sum(4 * self.coefficients[r] ** 3 * ct.chi(r, g) for r in range(1, ct.n_irreps)))

    def class_margins(self) -> tuple[sympy.Expr, ...]:
        r"""Margin :math:`f[ab] - f[ab\,g]` for g in each nontrivial class (entry 0 is 0):
        :math:`2(3|G|)^{-3/2}\sum_R s_R d_R^{-1/2}(1-\chi_R(C)/d_R)`."""
        ct = character_table(self.group)
        return (
            Integer(0),
            *tuple(
                sympy.radsimp(
                    sum(4 * self.coefficients[r] ** 3 * (ct.dims[r] - ct.values[r][c]) for r in range(1, ct.n_irreps))
                )
                for c in range(1, len(ct.classes))
            ),
        )

    @property
    def margin(self) -> sympy.Expr:
        """Dataset margin h = minimum class margin (exact)."""
        return min(self.class_margins()[1:], key=lambda x: float(sympy.N(x, 50)))

    @property
    def normalized_margin(self) -> sympy.Expr:
        return sympy.radsimp(self.margin / self.norm_power)


def construction(
    G: FiniteGroup | str, width: int | None = None, budgets: Sequence[object] | None = None
) -> GroupConstruction:
    """The construction of Lemmas D.15-D.16 (default budgets: Thm 7.9's, requires the condition), or with
    explicit per-irrep budgets ``s_R`` (non-negative, summing to 1; entry 0 ignored) as in App. D.9.2.

    Parameters
    ----------
    G : FiniteGroup or str
        A totally real group.
    width : int, optional
        Total width (default: the neurons used, ``2 sum_(R used) d_R^3``).
    budgets : sequence of numbers, optional
        :math:`s_R` per irrep (trivial first, ignored); default Thm 7.9's :math:`d_R^{5/2}/S`.

    Returns
    -------
    GroupConstruction

    Raises
    ------
    ValueError
        If G is not totally real, if the default budgets are asked for and the condition fails, if the
        budgets are invalid, or if ``width`` is below the number of neurons the construction uses.

    Examples
    --------
    >>> from theory.groups import construction
    >>> construction("S3", width=20).width
    20
    >>> construction("S3", budgets=[0, 0, 1]).normalized_margin
    1/54
    >>> construction("S3", width=5)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: width m = 5 is below the construction's size 18 = 2 sum_(R used) d_R^3 for S3 (... requires m >= 18)
    """
    G = as_group(G)
    ct = _real_table(G)
    if budgets is None:
        check_condition(G)
        S = s_sum(G)
        s = (Integer(0), *tuple(Integer(d) ** Rational(5, 2) / S for d in ct.dims[1:]))
    else:
        if isinstance(budgets, (str, bytes)) or not hasattr(budgets, "__iter__"):
            raise InputError(
                f"budgets must be a sequence of {ct.n_irreps} numbers, got {budgets!r:.80}", param="budgets"
            )
        s = tuple(as_number(x, "budgets", symbolic=False) for x in budgets)
        if len(s) != ct.n_irreps:
            raise ValueError(f"need one budget per irrep ({ct.n_irreps}, trivial first), got {len(s)}")
        total = sympy.Add(*s[1:])
        inexact = any(isinstance(x, sympy.Float) for x in s)
        if any(float(x) < 0 for x in s) or not (abs(float(total) - 1) <= 1e-12 if inexact else is_zero(total - 1)):
            raise ValueError("budgets s_R must be non-negative and sum to 1 over the nontrivial irreps")
        s = (Integer(0), *s[1:])
    coeffs = (
        Integer(0),
        *tuple(
            (s[r] / (2 * Integer(ct.dims[r]) ** 3)) ** Rational(1, 3) * sqrt(Rational(ct.dims[r], 3 * G.order))
            for r in range(1, ct.n_irreps)
        ),
    )
    n_active = 2 * sum(ct.dims[r] ** 3 for r in range(1, ct.n_irreps) if not s[r].is_zero)
    if width is None:
        width = n_active
    width = check_positive_int(width, "width")  # an int, numpy or sympy integer (a float is refused as one)
    if width < n_active:
        raise InputError(
            f"width m = {width!r} is below the construction's size {n_active} = 2 sum_(R used) d_R^3 for {G.name} "
            f"({SOURCE} requires m >= {min_width(G)})",
            param="width",
        )
    return GroupConstruction(group=G, budgets=s, coefficients=coeffs, width=width)


# --------------------------------------------------------------------------------------------
# App. D.9.2: groups where the condition fails (the character-level game)
# --------------------------------------------------------------------------------------------


@fill_doc(_DOC)
def character_game_matrix(G: FiniteGroup | str) -> tuple[tuple[sympy.Expr, ...], ...]:
    r"""Payoff :math:`A[R][C] = d_R^{-1/2}(1-\chi_R(C)/d_R)` of the character-level game of App. D.9.2 (``docs/groups.md``)
    (rows: nontrivial irreps, columns: nontrivial classes); then
    :math:`\gamma^*(G) = 2(3|G|)^{-3/2}\max_{s\in\Delta}\min_C (s^\top A)_C`.

    {{G}}

    Returns
    -------
    tuple of tuple of sympy.Expr
        ``(K - 1) x (n_classes - 1)``.

    Examples
    --------
    >>> from theory.groups import character_game_matrix
    >>> character_game_matrix("S3")
    ((2, 0), (sqrt(2)/2, 3*sqrt(2)/4))
    """
    ct = _real_table(G)
    return tuple(
        tuple(sympy.radsimp((1 - ct.values[r][c] / ct.dims[r]) / sqrt(ct.dims[r])) for c in range(1, len(ct.classes)))
        for r in range(1, ct.n_irreps)
    )


def game_value_on_support(
    G: FiniteGroup | str, irreps: Sequence[int], classes: Sequence[int]
) -> tuple[sympy.Expr, tuple[sympy.Expr, ...], tuple[sympy.Expr, ...]]:
    r"""Exact value of the character game of Edelman App. D.9.2 (corrected) given its support.

    Solves the two square systems of D.9.2: budgets s on the used irreps with
    :math:`\sum_R s_R A[R][C] = t` on the margin classes and :math:`\sum s = 1`; class weights p on the
    margin classes with :math:`\sum_C p_C A[R][C] = t` on the used irreps and :math:`\sum p = 1`
    (corrected normalization :math:`\sum|C|\tau_C = 1`, i.e. :math:`p_C = |C|\tau_C`). Indices are those of
    the character table (irrep 0 and class 0 are trivial and not allowed).

    Parameters
    ----------
    G : FiniteGroup or str
        A totally real group.
    irreps : sequence of int
        The irreps the optimal budgets use.
    classes : sequence of int
        The classes where the margin is attained, as many as ``irreps``.

    Returns
    -------
    (gamma, budgets, class_tau)
        :math:`\gamma^* = 2(3|G|)^{-3/2}t`, :math:`s_R` per irrep (0 off the support), :math:`\tau_C` per class.

    Raises
    ------
    ValueError
        If the support is not square or the systems are singular, or the solution is not an optimal
        pair (negative weights, or a constraint off the support is violated): then the guessed support is wrong.

    Examples
    --------
    For S_3 (condition holds) the full support gives the closed form of :func:`max_margin` and the class weights of
    :func:`tau`; a wrong support is refused:

    >>> from sympy import expand
    >>> from theory.groups import game_value_on_support, max_margin, tau
    >>> gamma, budgets, class_tau = game_value_on_support("S3", [1, 2], [1, 2])
    >>> expand(gamma - max_margin("S3")), [expand(a - b) for a, b in zip(class_tau, tau("S3"))]
    (0, [0, 0, 0])
    >>> game_value_on_support("S3", [2], [1])
    Traceback (most recent call last):
    ...
    ValueError: the solution on this support is not an optimal pair of the game (wrong support)
    """
    G = as_group(G)
    ct = _real_table(G)
    A = character_game_matrix(G)
    irreps = [check_positive_int(r, "irreps", minimum=0) for r in irreps]
    classes = [check_positive_int(c, "classes", minimum=0) for c in classes]
    if len(irreps) != len(classes) or not irreps:
        raise ValueError("D.9.2 needs as many used irreps as margin classes (square systems)")
    for name, idx in (("irreps", irreps), ("classes", classes)):
        if len(set(idx)) != len(idx):
            raise InputError(f"{name} must be distinct indices, got {tuple(idx)[:20]}", param=name)
    if not all(1 <= r < ct.n_irreps for r in irreps) or not all(1 <= c < len(ct.classes) for c in classes):
        raise ValueError(
            f"irrep and class indices must be nontrivial character-table indices of {G.name}: irreps in "
            f"1..{ct.n_irreps - 1} and classes in 1..{len(ct.classes) - 1}, got irreps={tuple(irreps)}, "
            f"classes={tuple(classes)}"
        )
    t = sympy.Symbol("t")
    s = sympy.symbols(f"s0:{len(irreps)}")
    p = sympy.symbols(f"p0:{len(classes)}")
    eq_s = [sum(s[i] * A[r - 1][c - 1] for i, r in enumerate(irreps)) - t for c in classes] + [sum(s) - 1]
    eq_p = [sum(p[i] * A[r - 1][c - 1] for i, c in enumerate(classes)) - t for r in irreps] + [sum(p) - 1]
    sol_s = sympy.solve(eq_s, [*s, t], dict=True)
    sol_p = sympy.solve(eq_p, [*p, t], dict=True)
    if len(sol_s) != 1 or len(sol_p) != 1:
        raise ValueError("the D.9.2 systems on this support are singular")
    unknowns_s, unknowns_p = [*s, t], [*p, t]
    if any(
        x not in sol[0] or sympy.sympify(sol[0][x]).free_symbols
        for sol, unknowns in ((sol_s, unknowns_s), (sol_p, unknowns_p))
        for x in unknowns
    ):
        raise ValueError(
            f"the D.9.2 systems on this support (irreps={tuple(irreps)}, classes={tuple(classes)}) are singular: "
            "the support does not determine the game value (some weight is left free)"
        )
    val = sympy.radsimp(sol_s[0][t])
    budgets = [Integer(0)] * ct.n_irreps
    for i, r in enumerate(irreps):
        budgets[r] = sympy.radsimp(sol_s[0][s[i]])
    taus = [Integer(0)] * len(ct.classes)
    for i, c in enumerate(classes):
        taus[c] = sympy.radsimp(sol_p[0][p[i]] / ct.class_sizes[c])
    tol = 1e-25
    ok = all(float(sympy.N(x, 40)) >= -tol for x in budgets + taus) and is_zero(sol_p[0][t] - val)
    ok = ok and all(
        float(sympy.N(sum(budgets[r] * A[r - 1][c - 1] for r in irreps) - val, 40)) >= -tol
        for c in range(1, len(ct.classes))
    )
    ok = ok and all(
        float(sympy.N(sum(taus[c] * ct.class_sizes[c] * A[r - 1][c - 1] for c in classes) - val, 40)) <= tol
        for r in range(1, ct.n_irreps)
    )
    if not ok:
        raise ValueError("the solution on this support is not an optimal pair of the game (wrong support)")
    gamma = sympy.radsimp(2 * val / (3 * Integer(G.order)) ** Rational(3, 2))
    return gamma, tuple(budgets), tuple(taus)


# --------------------------------------------------------------------------------------------
# Thesis Table D.1 (S_5): the character table as printed and recomputed
# --------------------------------------------------------------------------------------------

TABLE_D1_CLASSES: tuple[tuple[int, ...], ...] = (
    (1, 1, 1, 1, 1),
    (2, 1, 1, 1),
    (2, 2, 1),
    (3, 1, 1),
    (4, 1),
    (5,),
    (3, 2),
)
"""Cycle types of the columns of Table D.1: e, (12), (12)(34), (123), (1234), (12345), (12)(345)."""

TABLE_D1_AS_PRINTED: dict[str, tuple[int, ...]] = {
    "trivial": (1, 1, 1, 1, 1, 1, 1),
    "sign": (1, -1, 1, 1, -1, 1, -1),
    "standard": (4, -2, 0, 1, 0, -1, 1),
    "standard⊗sign": (4, 2, 0, 1, 0, -1, -1),
    "5d_a": (5, 1, 1, -1, -1, 0, 1),
    "5d_b": (5, -1, 1, -1, 1, 0, -1),
    "6d": (6, 0, -2, 0, 0, 1, 0),
}
"""Table D.1 of the thesis **as printed**: the rows 'standard' and 'standard⊗sign' have swapped labels
(the standard representation (4,1) has chi((12)) = +2). The set of rows is correct (``docs/groups.md``)."""

_TABLE_D1_PARTITIONS = {
    "trivial": (5,),
    "sign": (1, 1, 1, 1, 1),
    "standard": (4, 1),
    "standard⊗sign": (2, 1, 1, 1),
    "5d_a": (3, 2),
    "5d_b": (2, 2, 1),
    "6d": (3, 1, 1),
}


def table_d1_corrected() -> dict[str, tuple[int, ...]]:
    """Table D.1 recomputed (Murnaghan-Nakayama) with the thesis's row labels, columns in :data:`TABLE_D1_CLASSES`.

    Returns
    -------
    dict of str to tuple of int

    Examples
    --------
    The printed rows 'standard' and 'standard⊗sign' are swapped (:data:`TABLE_D1_AS_PRINTED`):

    >>> from theory.groups import TABLE_D1_AS_PRINTED, table_d1_corrected
    >>> t = table_d1_corrected()
    >>> t["standard"], TABLE_D1_AS_PRINTED["standard"]
    ((4, 2, 0, 1, 0, -1, -1), (4, -2, 0, 1, 0, -1, 1))
    >>> t["standard"] == TABLE_D1_AS_PRINTED["standard⊗sign"]
    True
    """
    return {
        name: tuple(murnaghan_nakayama(lam, mu) for mu in TABLE_D1_CLASSES)
        for name, lam in _TABLE_D1_PARTITIONS.items()
    }
