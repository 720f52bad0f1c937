r"""Explicit ReLU interpolations of parity on the lattice s in {-k, -k+2, ..., k} (exact, sympy Rationals).

Source: Edelman thesis Lemma B.4 / Claim 5 (App. B.2.1, Thm 5.5) and Lemma C.6 / Thm C.11 (App. C.2.2);
errata: ``docs/boolean.md``.

With :math:`s = \sum_{j\in S} x_j`, :math:`\chi_S(x) = \chi(s) := (-1)^{(k-s)/2}`, so a network of neurons
:math:`\sigma(\pm s/(2k) + b)` computes parity iff its output interpolates :math:`\chi` on the k+1 lattice
points. Interpolation exactness is checked as an exact least-squares residual (0 iff some output weights
interpolate), the residual summed over the k+1 lattice points with equal weight.

* Claim 5 corrected: k+1 ReLUs :math:`\mathrm{ReLU}(s/(2k) + 1/2 - (2i-1)/(2k))`, i = 0..k, weights
  :math:`u_i = (-1)^{i+k} 8ki` (i >= 1), :math:`u_0 = (-1)^k 2k`, interpolate :math:`\chi` exactly for every
  k >= 1 (:func:`claim5_corrected`). Note :math:`\|u\|_\infty = 8k^2`, not the :math:`8k` of Lemma B.4.
* Claim 5 as printed: k ReLUs :math:`\mathrm{ReLU}(s/(2k)+b_i)` with :math:`b_i = -1/2+(i+1)/k` (Lemma B.4)
  or :math:`-1/2+i/k` (Lemma B.5), i = 1..k, and :math:`u^*_i = 8k(-1)^{i+1}` (i <= k-2), :math:`u^*_{k-1}=6k`,
  :math:`u^*_k=-2k`, claimed to give :math:`f^* = 2\chi`; false for both schedules, and no output weights
  fix it (positive least-squares residual) (:func:`claim5_as_printed`).
* Lemma C.6: features :math:`\{1, \mathrm{ReLU}(\pm s/(2k)+\beta_j)\}` with
  :math:`\beta_j = (-k+2j+1/16)/(2k)`; with j = 0..k/2-1 (corrected) they interpolate :math:`\chi` exactly;
  with the printed j = 1..k/2-1 (Thm C.11 init) there are only k-1 features for k+1 points and the
  residual is positive (k = 2: the set is empty) (:func:`c6_features`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy

from ._checks import MAX_EXACT_ENTRIES, InputError, _as_int, as_number, check_bool, check_cost, format_count
from ._docstrings import fill_doc, sections

__all__ = [
    "SOURCE",
    "LeastSquares",
    "c6_bias",
    "c6_features",
    "c6_index_set",
    "claim5_as_printed",
    "claim5_corrected",
    "claim5_corrected_biases",
    "claim5_corrected_weights",
    "claim5_printed_biases",
    "claim5_printed_weights",
    "feature_matrix",
    "lattice",
    "least_squares",
    "parity_on_lattice",
    "relu",
]

SOURCE = "Edelman thesis Lemma B.4/Claim 5 (App. B.2.1), Lemma C.6/Thm C.11 (App. C.2.2); docs/boolean.md"

R = sympy.Rational

MAX_LSQ_COST = 200_000
"""Largest rows x cols x min(rows, cols) of the exact least squares (rational Gaussian elimination; a dense 58 x 58
system of small rationals takes a few seconds): the constructions on the k + 1 lattice points accept k <= 57."""


#: Shared docstring sections (:func:`theory._docstrings.fill_doc`).
_DOC = {
    "k": sections("k : int\n    The parity degree, ``k >= 1``."),
    "k_even_printed": sections(
        "k : int\n    The parity degree, even, ``k >= 2``.",
        "printed : bool, optional\n    The printed index set (default False: the corrected one).",
    ),
}


def _check_k(k: object, *, even: bool = False, what: str = "", entries: str = "") -> int:
    """The parity degree; with ``entries``, the size of the exact list (k + 1 lattice points) is checked too."""
    k = _as_int(k, "k")
    if k < 1:
        raise InputError(f"k must be >= 1 (parity degree), got k = {format_count(k)}", param="k")
    if even and (k % 2 or k < 2):
        raise InputError(f"{what} assumes k even (>= 2), got k = {format_count(k)}", param="k")
    if entries:
        check_cost(k + 1, MAX_EXACT_ENTRIES, param="k", value=k, what=entries, hint="use a smaller k")
    return k


def _check_lsq_k(k: int) -> None:
    check_cost(
        (k + 1) ** 3,
        MAX_LSQ_COST,
        param="k",
        value=k,
        what="the exact least squares over the k + 1 lattice points ((k+1)^3 rational operations)",
        hint="k <= 57; the closed-form weights (claim5_corrected_weights, c6_bias) exist for any k",
    )


@fill_doc(_DOC)
def lattice(k: object) -> list[int]:
    """The values of s = sum_{j in S} x_j: -k, -k+2, ..., k (k+1 points).

    {{k}}

    Returns
    -------
    list of int
        The k+1 lattice points, increasing.

    Examples
    --------
    >>> from theory.interpolation import lattice
    >>> lattice(3)
    [-3, -1, 1, 3]
    """
    k = _check_k(k, entries="the number of lattice points k + 1")
    return list(range(-k, k + 1, 2))


@fill_doc(_DOC)
def parity_on_lattice(k: object) -> list[int]:
    """chi(s) = (-1)^((k-s)/2) at each lattice point (= chi_S(x) when sum_{j in S} x_j = s).

    {{k}}

    Returns
    -------
    list of int
        chi(s) in the order of :func:`lattice`.

    Examples
    --------
    >>> from theory.interpolation import parity_on_lattice
    >>> parity_on_lattice(3)
    [-1, 1, -1, 1]
    """
    k = _check_k(k, entries="the number of lattice points k + 1")
    return [(-1) ** ((k - s) // 2) for s in lattice(k)]


def relu(z: sympy.Expr) -> sympy.Expr:
    """max(z, 0) for an exact number.

    Parameters
    ----------
    z : number
        An exact number (see :func:`theory._checks.as_number`; symbols are refused).

    Returns
    -------
    sympy.Expr
        ``max(z, 0)``.

    Examples
    --------
    >>> import sympy
    >>> from theory.interpolation import relu
    >>> relu(sympy.Rational(-1, 2)), relu("3/2")
    (0, 3/2)
    """
    z = as_number(z, "z", symbolic=False)
    return z if z > 0 else sympy.Integer(0)


def feature_matrix(k: int, features: Sequence[Callable[[int], sympy.Expr]]) -> sympy.Matrix:
    """Matrix Phi[s_index, feature] over the lattice of k.

    Parameters
    ----------
    k : int
        The parity degree, ``k >= 1``.
    features : sequence of callable
        Each maps a lattice point s (int) to an exact value.

    Returns
    -------
    sympy.Matrix
        The (k+1) x len(features) matrix.

    Examples
    --------
    >>> import sympy
    >>> from theory.interpolation import feature_matrix
    >>> feature_matrix(2, [lambda s: sympy.Integer(1), lambda s: sympy.Integer(s)])
    Matrix([
    [1, -2],
    [1,  0],
    [1,  2]])
    """
    k = _check_k(k)
    if isinstance(features, (str, bytes)) or not hasattr(features, "__len__"):
        raise InputError(f"features must be a sequence of functions, got {features!r:.80}", param="features")
    if not all(callable(f) for f in features):
        raise InputError("features must be a sequence of functions of a lattice point", param="features")
    check_cost(
        (k + 1) * max(len(features), 1),
        MAX_EXACT_ENTRIES,
        param="k",
        value=k,
        what="the number of exact entries (k+1) len(features)",
        hint="use a smaller k",
    )
    rows = [[as_number(f(s), "features") for f in features] for s in lattice(k)]
    return sympy.Matrix(rows) if features else sympy.zeros(k + 1, 0)


@dataclass(frozen=True)
class LeastSquares:
    """Exact least squares min_u ||Phi u - y||_2: a minimiser, the residual vector and its squared norm.

    Attributes
    ----------
    weights : tuple of sympy.Rational
        A minimiser u (zeros off an independent set of columns).
    residual : tuple of sympy.Rational
        ``y - Phi u``.
    residual_sq : sympy.Rational
        ``||y - Phi u||_2^2``.
    rank : int
        The rank of Phi.

    Examples
    --------
    >>> import sympy
    >>> from theory.interpolation import least_squares
    >>> r = least_squares(sympy.Matrix([[1, -2], [1, 0], [1, 2]]), [1, -1, 1])  # no line fits parity at k = 2
    >>> r.weights, r.residual_sq, r.exact
    ((1/3, 0), 8/3, False)
    """

    weights: tuple
    residual: tuple
    residual_sq: sympy.Rational
    rank: int

    def __post_init__(self) -> None:
        for name in ("weights", "residual"):
            value = getattr(self, name)
            if not isinstance(value, tuple) or not all(isinstance(x, sympy.Expr) for x in value):
                raise InputError(f"{name} must be a tuple of sympy numbers, got {value!r:.80}", param=name)
        r2 = self.residual_sq
        if not isinstance(r2, sympy.Expr) or r2.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            raise InputError(f"residual_sq must be a finite sympy number, got {r2!r:.80}", param="residual_sq")
        if r2.is_number and r2.is_negative:
            raise InputError(f"residual_sq must be >= 0 (a squared norm), got {r2}", param="residual_sq")
        if isinstance(self.rank, bool) or not isinstance(self.rank, int) or self.rank < 0:
            raise InputError(f"rank must be an integer >= 0, got {self.rank!r:.80}", param="rank")

    @property
    def residual_norm(self) -> float:
        """``||y - Phi u||_2`` as a float."""
        return float(sympy.sqrt(self.residual_sq))

    @property
    def exact(self) -> bool:
        """Whether the residual is exactly 0 (some output weights interpolate y)."""
        return self.residual_sq == 0


def least_squares(Phi: sympy.Matrix, y: Sequence) -> LeastSquares:
    """Exact least squares over the column space of Phi (rational arithmetic; rank-deficient Phi allowed).

    The residual is y minus its orthogonal projection onto col(Phi); the returned weights use an
    independent subset of columns (zeros elsewhere).

    Parameters
    ----------
    Phi : sympy.Matrix
        The feature matrix (rows: points, columns: features), exact entries.
    y : sequence of numbers
        The targets, one per row.

    Returns
    -------
    LeastSquares
        The minimiser, the residual and the rank.

    Examples
    --------
    >>> import sympy
    >>> from theory.interpolation import least_squares
    >>> least_squares(sympy.Matrix([[1, 0], [1, 1], [1, 2]]), [0, 1, 2])
    LeastSquares(weights=(0, 1), residual=(0, 0, 0), residual_sq=0, rank=2)
    """
    if not isinstance(Phi, sympy.MatrixBase):
        raise InputError(f"Phi must be a sympy Matrix, got {Phi!r:.80}", param="Phi")
    check_cost(
        Phi.rows * Phi.cols * min(Phi.rows, Phi.cols),
        MAX_LSQ_COST,
        param="Phi",
        value=Phi.rows * Phi.cols * min(Phi.rows, Phi.cols),
        what="the rows x cols x min(rows, cols) rational operations of the exact elimination",
        hint="use numpy.linalg.lstsq for a float solution",
    )
    if any(not isinstance(x, sympy.Expr) or x.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) for x in Phi):
        raise InputError("Phi must hold finite exact numbers", param="Phi")
    if isinstance(y, (str, bytes)) or not hasattr(y, "__iter__"):
        raise InputError(f"y must be a sequence of numbers, got {y!r:.80}", param="y")
    Y = sympy.Matrix([as_number(v, "y") for v in y])
    if Phi.rows != Y.rows:
        raise InputError(f"Phi has {Phi.rows} rows but y has {Y.rows} entries", param="y")
    if Phi.cols == 0:
        return LeastSquares((), tuple(Y), sum((v**2 for v in Y), sympy.Integer(0)), 0)
    _, pivots = Phi.rref()
    B = Phi[:, list(pivots)]
    coef = (B.T * B).inv() * (B.T * Y)
    r = Y - B * coef
    w = [sympy.Integer(0)] * Phi.cols
    for c, p in zip(coef, pivots):
        w[p] = c
    return LeastSquares(tuple(w), tuple(r), sympy.simplify(sum((v**2 for v in r), sympy.Integer(0))), len(pivots))


# --------------------------------------------------------------------------------------------------
# Lemma B.4 / Claim 5
# --------------------------------------------------------------------------------------------------
@fill_doc(_DOC)
def claim5_corrected_biases(k: object) -> list[sympy.Rational]:
    """b_i = 1/2 - (2i-1)/(2k) for i = 0..k: the knot of ReLU(s/(2k) + b_i) sits at s = 2i-1-k, between lattice points.

    {{k}}

    Returns
    -------
    list of sympy.Rational
        ``[b_0, ..., b_k]``.

    Examples
    --------
    >>> from theory.interpolation import claim5_corrected_biases
    >>> claim5_corrected_biases(2)
    [3/4, 1/4, -1/4]
    """
    k = _check_k(k, entries="the number of exact biases k + 1")
    return [R(1, 2) - R(2 * i - 1, 2 * k) for i in range(k + 1)]


@fill_doc(_DOC)
def claim5_corrected_weights(k: object) -> list[int]:
    """u_0 = (-1)^k 2k, u_i = (-1)^(i+k) 8k i (i = 1..k); for k = 4: (8, -32, 64, -96, 128).

    {{k}}

    Returns
    -------
    list of int
        ``[u_0, ..., u_k]``.

    Examples
    --------
    >>> from theory.interpolation import claim5_corrected_weights
    >>> claim5_corrected_weights(4)
    [8, -32, 64, -96, 128]
    """
    k = _check_k(k, entries="the number of weights k + 1")
    return [(-1) ** k * 2 * k] + [(-1) ** (i + k) * 8 * k * i for i in range(1, k + 1)]


def _neuron(k: int, b: sympy.Expr, sign: int) -> Callable[[int], sympy.Expr]:
    return lambda s: relu(sign * R(s, 2 * k) + b)


def _neurons(k: int, biases: Sequence, sign: int = 1) -> list[Callable[[int], sympy.Expr]]:
    return [_neuron(k, b, sign) for b in biases]


def _claim5_fit(k: int, biases: Sequence, weights: Sequence, target: list[int]) -> dict:
    """Claim 5's network on the lattice ``s = 0..k`` (Edelman Lemma B.4, App. B.2.1; docs/boolean.md).

    The features are the neurons ``ReLU(s/(2k) + b_i)`` of :func:`_neurons`; the network's values are
    ``f(s) = sum_i u_i ReLU(s/(2k) + b_i)``, i.e. ``Phi u`` with ``Phi`` the :func:`feature_matrix`, and the exact
    least-squares fit of ``target`` over the same features (:func:`least_squares`) says whether any output weights
    reach it. Shared by :func:`claim5_corrected` and :func:`claim5_as_printed`.

    Parameters
    ----------
    k : int
        The parity degree, already checked.
    biases, weights : sequence of sympy numbers
        The biases ``b_i`` and the output weights ``u_i``, one per neuron.
    target : list of int
        The values the network should produce on the lattice.

    Returns
    -------
    dict
        ``"Phi"`` (sympy.Matrix), ``"weights"`` and ``"values"`` (lists of sympy numbers), ``"target"`` and ``"lsq"``.
    """
    Phi = feature_matrix(k, _neurons(k, biases))
    u = sympy.Matrix(weights)
    return {
        "Phi": Phi,
        "weights": list(u),
        "values": list(Phi * u),
        "target": target,
        "lsq": least_squares(Phi, target),
    }


@fill_doc(_DOC)
def claim5_corrected(k: object) -> dict:
    """The corrected Claim 5 construction: feature matrix, weights, produced values f(s) and target chi(s).

    Returns ``{"Phi", "weights", "values", "target", "lsq"}`` with ``values[j] = sum_i u_i ReLU(s_j/(2k)+b_i)``.

    {{k}}

    Returns
    -------
    dict
        ``"Phi"`` (sympy.Matrix), ``"weights"`` and ``"values"`` (lists of sympy numbers), ``"target"`` (list of
        int) and ``"lsq"`` (:class:`LeastSquares` of the target over the features).

    Examples
    --------
    >>> from theory.interpolation import claim5_corrected
    >>> c = claim5_corrected(3)
    >>> c["values"], c["target"], c["lsq"].exact
    ([-1, 1, -1, 1], [-1, 1, -1, 1], True)
    """
    k = _check_k(k)
    _check_lsq_k(k)
    return _claim5_fit(k, claim5_corrected_biases(k), claim5_corrected_weights(k), parity_on_lattice(k))


def claim5_printed_biases(k: object, schedule: str) -> list[sympy.Rational]:
    """The printed bias schedules for the k neurons i = 1..k: ``"i+1"``: -1/2 + (i+1)/k (Lemma B.4 statement);
    ``"i"``: -1/2 + i/k (Lemma B.5 proof); docs/boolean.md.

    Parameters
    ----------
    k : int
        The parity degree, ``k >= 1``.
    schedule : {"i+1", "i"}
        Lemma B.4's or Lemma B.5's schedule.

    Returns
    -------
    list of sympy.Rational
        ``[b_1, ..., b_k]``.

    Examples
    --------
    >>> from theory.interpolation import claim5_printed_biases
    >>> claim5_printed_biases(3, "i+1"), claim5_printed_biases(3, "i")
    ([1/6, 1/2, 5/6], [-1/6, 1/6, 1/2])
    """
    k = _check_k(k, entries="the number of biases (k + 1 bounds the k biases)")
    if schedule == "i+1":
        return [-R(1, 2) + R(i + 1, k) for i in range(1, k + 1)]
    if schedule == "i":
        return [-R(1, 2) + R(i, k) for i in range(1, k + 1)]
    raise InputError(f"schedule must be 'i+1' (Lemma B.4) or 'i' (Lemma B.5), got {schedule!r:.80}", param="schedule")


def claim5_printed_weights(k: object) -> list[int]:
    """u*_i = 8k(-1)^(i+1) for i <= k-2, u*_(k-1) = 6k, u*_k = -2k (Claim 5 as printed); needs k >= 2.

    Parameters
    ----------
    k : int
        The parity degree, ``k >= 2``.

    Returns
    -------
    list of int
        ``[u*_1, ..., u*_k]``.

    Examples
    --------
    >>> from theory.interpolation import claim5_printed_weights
    >>> claim5_printed_weights(3)
    [24, 18, -6]
    """
    k = _check_k(k, entries="the number of weights (k + 1 bounds the k weights)")
    if k < 2:
        raise InputError(f"the printed Claim 5 weights need k >= 2 (they name u_(k-1) and u_k), got k = {k}", param="k")
    return [8 * k * (-1) ** (i + 1) for i in range(1, k - 1)] + [6 * k, -2 * k]


def claim5_as_printed(k: object, schedule: str) -> dict:
    """Claim 5 as printed: values f*(s) = sum_i u*_i ReLU(s/(2k) + b_i) vs the claimed 2 chi(s), and the exact
    least-squares residual of 2 chi over the k printed features (positive: no output weights work).

    Parameters
    ----------
    k : int
        The parity degree, ``k >= 2``.
    schedule : {"i+1", "i"}
        The bias schedule (:func:`claim5_printed_biases`).

    Returns
    -------
    dict
        ``"Phi"``, ``"weights"``, ``"values"``, ``"target"`` (``2 chi``) and ``"lsq"``, as in :func:`claim5_corrected`.

    Examples
    --------
    >>> from theory.interpolation import claim5_as_printed
    >>> c = claim5_as_printed(3, "i")
    >>> c["values"], c["target"], c["lsq"].residual_sq
    ([0, -2, 2, 14], [-2, 2, -2, 2], 4)
    """
    k = _check_k(k)
    _check_lsq_k(k)
    target = [2 * c for c in parity_on_lattice(k)]
    return _claim5_fit(k, claim5_printed_biases(k, schedule), claim5_printed_weights(k), target)


# --------------------------------------------------------------------------------------------------
# Lemma C.6 / Thm C.11
# --------------------------------------------------------------------------------------------------
def c6_bias(k: object, j: object) -> sympy.Rational:
    """beta_j = (-k + 2j + 1/16)/(2k) (Thm C.11 init).

    Parameters
    ----------
    k : int
        The parity degree, ``k >= 1``.
    j : int
        The index.

    Returns
    -------
    sympy.Rational
        beta_j.

    Examples
    --------
    >>> from theory.interpolation import c6_bias
    >>> c6_bias(4, 0), c6_bias(4, 1)
    (-63/128, -31/128)
    """
    k = _check_k(k)
    j = _as_int(j, "j")
    return R(-16 * k + 32 * j + 1, 32 * k)


@fill_doc(_DOC)
def c6_index_set(k: object, printed: bool = False) -> list[int]:
    """j = 0..k/2-1 (corrected, k/2 biases) or j = 1..k/2-1 as printed in Thm C.11 / Lemma C.6 (docs/boolean.md).

    {{k_even_printed}}

    Returns
    -------
    list of int
        The indices j.

    Examples
    --------
    >>> from theory.interpolation import c6_index_set
    >>> c6_index_set(4), c6_index_set(4, printed=True)
    ([0, 1], [1])
    """
    k = _check_k(k, even=True, what="Thm C.11 / Lemma C.6")
    check_cost(k // 2, MAX_EXACT_ENTRIES, param="k", value=k, what="the number of indices k/2", hint="use a smaller k")
    return list(range(1 if check_bool(printed, "printed") else 0, k // 2))


@fill_doc(_DOC)
def c6_features(k: object, printed: bool = False) -> dict:
    """Features {1, ReLU(s/(2k) + beta_j), ReLU(-s/(2k) + beta_j)} over the index set; exact least squares of chi.

    Corrected (j = 0..k/2-1): k+1 features on k+1 points, triangular, residual exactly 0.
    As printed (j = 1..k/2-1): k-1 features, residual > 0.

    {{k_even_printed}}

    Returns
    -------
    dict
        ``"index_set"``, ``"betas"``, ``"Phi"`` (sympy.Matrix), ``"target"`` (chi on the lattice) and ``"lsq"``
        (:class:`LeastSquares`).

    Examples
    --------
    >>> from theory.interpolation import c6_features
    >>> c = c6_features(4)
    >>> c["Phi"].shape, c["lsq"].exact
    ((5, 5), True)
    >>> c = c6_features(4, printed=True)
    >>> c["Phi"].shape, c["lsq"].residual_sq
    ((5, 3), 1452/523)
    """
    k = _check_k(k, even=True, what="Thm C.11 / Lemma C.6")
    _check_lsq_k(k)
    js = c6_index_set(k, printed)
    betas = [c6_bias(k, j) for j in js]
    feats: list[Callable[[int], sympy.Expr]] = [lambda s: sympy.Integer(1)]
    feats += _neurons(k, betas, +1) + _neurons(k, betas, -1)
    Phi = feature_matrix(k, feats)
    target = parity_on_lattice(k)
    return {"index_set": js, "betas": betas, "Phi": Phi, "target": target, "lsq": least_squares(Phi, target)}
