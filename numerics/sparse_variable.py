r"""Float64 evaluation of the sparse-variable-creation constructions (Edelman thesis Ch. 4, App. A.1-A.3;
``docs/sparse_variable.md``).

The constructions of :mod:`theory.sparse_variable` are written with named unit vectors; here they are
*materialised* in an embedding (:class:`Embedding`: an orthonormal basis, or random sign vectors with coherence
``Delta > 0`` as in App. A.2.1) and evaluated by an actual softmax on batches of contexts ``b in {0,1}^T``:

* :func:`materialize_head`, :class:`NumericConstruction`: the heads as float64 matrices (``W_Q`` includes R) and
  their forward pass at [CLS] (:meth:`NumericConstruction.forward`), the attention weights, and the Frobenius
  norms (:meth:`NumericConstruction.norms`);
* :func:`mlp_arrays`, :func:`mlp_forward`: the Lemma A.25 network in float64;
* :func:`all_inputs`, :func:`random_inputs`: contexts;
* :func:`lemma47_ratios`: Lemma 4.7's two sides for random and adversarial parameter perturbations of a
  Transformer head (``Score = X W_QK^T z``, ``phi_in = W_V^T x``, ``phi_out = sigma``);
* :func:`softmax_l11`, :func:`softmax_linf_to_l1_ratio`: the quantities behind Cor. A.7;
* :func:`shattering_patterns`: the explicit shattering of Prop. 4.8;
* the Sec. 4.6 data: :func:`and_labels`, :func:`consistent_supports` (every s-subset whose AND fits a sample),
  :func:`sample_identifiable_and` (App. A.3.1's rejection of samples consistent with several hypotheses),
  :func:`sample_threshold` and :func:`log_trend` (Fig. 4.2's threshold rule and the trend test).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import scipy.sparse as sp
import sympy

from numerics.limits import STEP_COST, array_bytes, check_allocation, check_count, check_real, check_rng, check_work
from theory import sparse_variable as ts
from theory._checks import MAX_DIGITS, MAX_EXACT_ENTRIES, InputError, check_cost, format_count
from theory._docstrings import fill_doc

__all__ = [
    "MAX_ALL_INPUTS_T",
    "MAX_EXACT_ERROR_WORK",
    "MAX_SUPPORTS",
    "Embedding",
    "NumericConstruction",
    "NumericRepresentation",
    "UnidentifiableSample",
    "all_inputs",
    "and_labels",
    "coherent_embedding",
    "consistent_supports",
    "cross_gram",
    "exact_head_errors",
    "gram_of",
    "lemma47_ratios",
    "lemma47_sides",
    "log_trend",
    "materialize",
    "mlp_arrays",
    "mlp_forward",
    "orthonormal_embedding",
    "random_inputs",
    "relevant_keys",
    "sample_identifiable_and",
    "sample_threshold",
    "shattering_inputs",
    "shattering_patterns",
    "softmax",
    "softmax_l11",
    "softmax_linf_to_l1_ratio",
    "target_values",
    "worst_errors_by_level",
]


MAX_ALL_INPUTS_T = 20
"""Largest context length of :func:`all_inputs` (2^20 contexts)."""
MAX_EXACT_ERROR_WORK = 10**9
"""Largest contexts x (T + 1) x heads x (outputs + 1) x digits of :func:`exact_head_errors` (mpmath work)."""
MAX_SUPPORTS = 10**7
"""Largest number of s-subsets :func:`consistent_supports` may search (one Python step each)."""

#: Sections shared by several docstrings of this module (filled in by :func:`theory._docstrings.fill_doc`,
#: issue 27): a Parameters entry, and the doctest lines that build the Lemma A.19 construction the examples use.
_DOC = {
    "context": """T : int
    Context length, >= 2.""",
    "example_a19": """>>> from fractions import Fraction
>>> from theory import sparse_variable as ts
>>> c = ts.lemma_a19(6, (1, 3), Fraction(1, 2))""",
}


def _array(value: object, name: str, *, ndim: int | None = None, min_ndim: int = 0) -> np.ndarray:
    """A finite float64 array (``ndim`` axes, or at least ``min_ndim``); InputError naming ``name``."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be an array of finite numbers, got {value!r:.80}", param=name) from None
    if value is None or (ndim is not None and a.ndim != ndim) or a.ndim < min_ndim:
        shape = f"{ndim}-d" if ndim is not None else f"at least {min_ndim}-d"
        raise InputError(f"{name} must be a {shape} array of finite numbers, got {value!r:.80}", param=name)
    if not np.isfinite(a).all():
        raise InputError(f"{name} must be finite (it holds NaN or infinite entries)", param=name)
    return a


def _bits(value: object, name: str = "b", T: int | None = None) -> np.ndarray:
    """Contexts ``(B, T)`` of integer bits; InputError naming ``name``."""
    b = np.asarray(value)
    if b.ndim != 2 or not np.issubdtype(b.dtype, np.integer) or (T is not None and b.shape[1] != T):
        raise InputError(
            f"{name} must be a (B, T{' = ' + str(T) if T else ''}) integer array of bits, got {value!r:.80}", param=name
        )
    return b.astype(np.int64, copy=False)


def _check_construction(c: object) -> ts.Construction:
    if not isinstance(c, ts.Construction):
        raise InputError(f"c must be a theory.sparse_variable.Construction, got {c!r:.80}", param="c")
    return c


def _check_embedding(emb: object) -> Embedding:
    if not isinstance(emb, Embedding):
        raise InputError(
            f"emb must be an Embedding (orthonormal_embedding, coherent_embedding), got {emb!r:.80}", param="emb"
        )
    return emb


def _positions(value: object, name: str, n_pos: int) -> list[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, range, np.ndarray)):
        raise InputError(f"{name} must be a sequence of positions, got {value!r:.80}", param=name)
    out = []
    for i in value:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n_pos:
            raise InputError(f"{name} must hold positions in [0, {n_pos}), got {i!r:.80}", param=name)
        out.append(int(i))
    return out


# --------------------------------------------------------------------------------------------- embeddings


@dataclass(frozen=True)
class Embedding:
    """Unit vectors for the named vectors of :mod:`theory.sparse_variable` in ``R^d``.

    ``pos`` ``(n_pos, d)`` (dense, or a sparse identity for long contexts), ``tok`` ``(2, d)``, ``cls`` ``(d,)``; the
    token and [CLS] vectors are exactly orthogonal to the positional ones and to each other (App. A.2.1).
    ``coherence`` is ``max_{i != j} |<pos_i, pos_j>|`` (Delta, exact).

    Attributes
    ----------
    pos : float array or scipy.sparse.csr_matrix, shape (n_pos, d)
        The positional vectors.
    tok : float array (2, d)
        The token vectors E_0, E_1.
    cls : float array (d,)
        The [CLS] vector.
    coherence : Fraction
        Delta.

    Examples
    --------
    >>> emb = orthonormal_embedding(4)
    >>> emb.d, emb.coherence, emb.vector(("pos", 1)).tolist(), emb.vector(("tok", 0)).tolist()
    (7, Fraction(0, 1), [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    """

    pos: np.ndarray | sp.csr_matrix
    tok: np.ndarray
    cls: np.ndarray
    coherence: Fraction

    @property
    def d(self) -> int:
        return int(self.cls.shape[0])

    def vector(self, name: tuple) -> np.ndarray:
        """The model-space vector of a named vector (``("pos", j)``, ``("tok", 0 | 1)``, ``("cls",)``)."""
        if name[0] == "pos":
            row = self.pos[name[1]]
            return np.asarray(row.todense()).ravel() if sp.issparse(row) else np.asarray(row)
        if name[0] == "tok":
            return self.tok[name[1]]
        if name[0] == "cls":
            return self.cls
        raise ValueError(f"{name} is not a model-space vector")


def cross_gram(emb: Embedding, rows: Sequence[int], cols: Sequence[int] | None = None) -> list[list[Fraction]]:
    """The exact inner products ``<pos_i, pos_j>`` (i in ``rows``, j in ``cols``, default every position) of a
    sign-vector or orthonormal embedding: entries ``k / d_pos`` from the integer sign matrix (the vectors are
    ``+-1/sqrt(d_pos)``), or 0/1 for standard basis vectors.

    Parameters
    ----------
    emb : Embedding
        A sign-vector (:func:`coherent_embedding`) or orthonormal embedding.
    rows : sequence of int
        Positions of the rows.
    cols : sequence of int, optional
        Positions of the columns (default every position).

    Returns
    -------
    list of list of Fraction
        The inner products.

    Examples
    --------
    >>> import numpy as np
    >>> emb = coherent_embedding(5, 16, np.random.default_rng(0))
    >>> [[str(v) for v in row] for row in cross_gram(emb, [0], [0, 1, 2])]
    [['1', '3/8', '1/8']]
    >>> cross_gram(orthonormal_embedding(3), [0, 1], [1])
    [[Fraction(0, 1)], [Fraction(1, 1)]]
    """
    emb = _check_embedding(emb)
    n_pos = emb.pos.shape[0]
    rows = _positions(rows, "rows", n_pos)
    cols = list(range(n_pos)) if cols is None else _positions(cols, "cols", n_pos)
    check_cost(
        len(rows) * len(cols),
        MAX_EXACT_ENTRIES,
        param="cols" if len(cols) > len(rows) else "rows",
        value=len(cols) if len(cols) > len(rows) else len(rows),
        what=f"the exact inner products ({len(rows)} rows x {len(cols)} columns)",
        hint="pass the positions of interest",
    )
    if sp.issparse(emb.pos):
        return [[Fraction(int(i == j)) for j in cols] for i in rows]
    d_pos = int(np.count_nonzero(emb.pos[0]))
    signs = np.rint(emb.pos * np.sqrt(d_pos)).astype(np.int64)
    prod = signs[list(rows)] @ signs[list(cols)].T
    return [[Fraction(int(x), d_pos) for x in row] for row in prod]


def gram_of(emb: Embedding, positions: Sequence[int]) -> list[list[Fraction]]:
    """The exact Gram matrix of the positional vectors ``positions`` (:func:`cross_gram` of them with themselves).

    Parameters
    ----------
    emb : Embedding
        A sign-vector or orthonormal embedding.
    positions : sequence of int
        The positions.

    Returns
    -------
    list of list of Fraction
        The symmetric Gram matrix (unit diagonal).

    Examples
    --------
    >>> import numpy as np
    >>> emb = coherent_embedding(5, 16, np.random.default_rng(0))
    >>> [[str(v) for v in row] for row in gram_of(emb, [0, 1])]
    [['1', '3/8'], ['3/8', '1']]
    """
    emb = _check_embedding(emb)
    positions = _positions(positions, "positions", emb.pos.shape[0])
    check_cost(
        len(positions) ** 2,
        MAX_EXACT_ENTRIES,
        param="positions",
        value=len(positions),
        what="the exact Gram matrix (len(positions)^2 entries)",
        hint="pass fewer positions",
    )
    return cross_gram(emb, positions, positions)


def orthonormal_embedding(n_pos: int) -> Embedding:
    """The standard basis: ``pos_j = e_j`` (j < n_pos, stored sparse), ``E_0, E_1, v_CLS = e_{n_pos}, e_{n_pos+1},
    e_{n_pos+2}``; ``d = n_pos + 3``, coherence 0.

    Parameters
    ----------
    n_pos : int
        Number of positional vectors, >= 1.

    Returns
    -------
    Embedding
        The standard basis of ``R^(n_pos + 3)``.

    Examples
    --------
    >>> emb = orthonormal_embedding(4)
    >>> emb.d, emb.pos.shape, emb.cls.tolist()
    (7, (4, 7), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    """
    n_pos = check_count(n_pos, "n_pos", message=f"n_pos must be >= 1, got {n_pos!r:.80}")
    check_allocation(
        array_bytes(n_pos, itemsize=64),
        param="n_pos",
        value=n_pos,
        what="the sparse identity and the extra coordinates (about 64 bytes per position)",
        hint="use fewer positions",
    )
    d = n_pos + 3
    extra = np.zeros((3, d))
    extra[np.arange(3), n_pos + np.arange(3)] = 1.0
    pos = sp.identity(n_pos, format="csr", dtype=np.float64)
    pos = sp.hstack([pos, sp.csr_matrix((n_pos, 3))], format="csr")
    return Embedding(pos, extra[:2], extra[2], Fraction(0))


def coherent_embedding(n_pos: int, d_pos: int, rng: np.random.Generator) -> Embedding:
    """Random sign vectors ``pos_j in {+-1}^{d_pos} / sqrt(d_pos)`` (approximately orthonormal, App. A.2.1) and three
    extra orthonormal coordinates for ``E_0, E_1, v_CLS``; the coherence is computed exactly from the integer Gram
    matrix (a Fraction). :func:`gram_of` gives the exact Gram matrix of chosen positional vectors.

    Parameters
    ----------
    n_pos : int
        Number of positional vectors, >= 1.
    d_pos : int
        Their dimension, >= 1.
    rng : numpy.random.Generator
        Source of the signs.

    Returns
    -------
    Embedding
        Vectors in ``R^(d_pos + 3)``.

    Examples
    --------
    The coherence is the largest off-diagonal inner product:

    >>> import numpy as np
    >>> emb = coherent_embedding(5, 16, np.random.default_rng(0))
    >>> emb.d, emb.coherence
    (19, Fraction(1, 2))
    >>> G = emb.pos @ emb.pos.T
    >>> bool(np.allclose(np.diag(G), 1)), float(np.abs(G - np.diag(np.diag(G))).max())
    (True, 0.5)
    """
    n_pos = check_count(n_pos, "n_pos", message=f"need n_pos >= 1 and d_pos >= 1, got {n_pos!r:.80}, {d_pos!r:.80}")
    d_pos = check_count(d_pos, "d_pos", message=f"need n_pos >= 1 and d_pos >= 1, got {n_pos!r:.80}, {d_pos!r:.80}")
    rng = check_rng(rng)
    check_allocation(2 * array_bytes(n_pos, n_pos), param="n_pos", value=n_pos, what="the Gram matrix (n_pos, n_pos)")
    check_allocation(
        3 * array_bytes(n_pos, d_pos + 3), param="d_pos", value=d_pos, what=f"the {n_pos} sign vectors (n_pos, d_pos)"
    )
    check_work(
        n_pos * n_pos * d_pos,
        param="d_pos",
        value=d_pos,
        what=f"the Gram matrix of {n_pos} sign vectors (n_pos^2 d_pos products)",
        hint="use fewer or shorter vectors",
    )
    signs = rng.choice(np.array([-1.0, 1.0]), size=(n_pos, d_pos))
    gram = (signs @ signs.T).astype(np.int64)
    np.fill_diagonal(gram, 0)
    coherence = Fraction(int(np.abs(gram).max()), d_pos) if n_pos > 1 else Fraction(0)
    d = d_pos + 3
    pos = np.zeros((n_pos, d))
    pos[:, :d_pos] = signs / np.sqrt(d_pos)
    extra = np.zeros((3, d))
    extra[np.arange(3), d_pos + np.arange(3)] = 1.0
    return Embedding(pos, extra[:2], extra[2], coherence)


# --------------------------------------------------------------------------------------------- constructions


@fill_doc(_DOC)
def materialize(weight: ts.RankOneSum, emb: Embedding, shape_right: int, left_k: int | None = None) -> np.ndarray:
    """A rank-one-sum weight as a float64 matrix: left names in model space (``(d, .)``) or, with ``left_k``, head
    coordinates (``(left_k, .)``); right names are head or output coordinates (``shape_right`` columns).

    Parameters
    ----------
    weight : theory.sparse_variable.RankOneSum
        The named weight.
    emb : Embedding
        The model-space vectors of the left names.
    shape_right : int
        Number of columns.
    left_k : int, optional
        Number of rows when the left names are head coordinates.

    Returns
    -------
    float64 array (d or left_k, shape_right)
        The matrix.

    Examples
    --------
    ``W_K = (v_1 + v_3) e_1^T`` of Lemma A.19 with I = {1, 3}:

    {{example_a19}}
    >>> materialize(c.heads[0].W_K, orthonormal_embedding(6), 1)[:, 0].tolist()
    [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    if not isinstance(weight, ts.RankOneSum):
        raise InputError(f"weight must be a theory.sparse_variable.RankOneSum, got {weight!r:.80}", param="weight")
    emb = _check_embedding(emb)
    shape_right = check_count(shape_right, "shape_right")
    if left_k is not None:
        left_k = check_count(left_k, "left_k")
    rows = left_k if left_k is not None else emb.d
    check_allocation(
        3 * array_bytes(rows, shape_right),
        param="shape_right",
        value=shape_right,
        what=f"the matrix ({rows}, shape_right)",
    )
    for _, u, w in weight.terms:
        if not (isinstance(w[1], int) and 0 <= w[1] < shape_right):
            raise InputError(f"the weight names column {w} outside the {shape_right} columns", param="shape_right")
        if left_k is not None and not (isinstance(u[1], int) and 0 <= u[1] < left_k):
            raise InputError(f"the weight names row {u} outside the {left_k} rows", param="left_k")
    M = np.zeros((rows, shape_right))
    for c, u, w in weight.terms:
        col = np.zeros(shape_right)
        col[w[1]] = 1.0
        left = np.zeros(rows)
        if left_k is not None:
            left[u[1]] = 1.0
        else:
            left = emb.vector(u)
        M += float(c) * np.outer(left, col)
    return M


def _n_k(c: ts.Construction) -> int:
    names = [w for h in c.heads for wt in (h.W_Q_unit, h.W_K, h.W_V) for _, _, w in wt.terms]
    names += [u for h in c.heads for _, u, _ in h.W_C.terms]
    return 1 + max(n[1] for n in names)


@fill_doc(_DOC)
@dataclass
class NumericConstruction:
    """A :class:`theory.sparse_variable.Construction` materialised in ``emb``: per head ``W_Q`` (with R), ``W_K``,
    ``W_V`` ``(d, k)`` and ``W_C`` ``(k, n_out)``; the positional table ``P`` ``(T, d)`` (sparse when the embedding
    is).

    Attributes
    ----------
    construction : theory.sparse_variable.Construction
        The exact construction.
    emb : Embedding
        The embedding it is materialised in.
    R : float
        The score scale.
    W_Q, W_K, W_V, W_C : list of float arrays
        The weights of every head.
    P : float array or scipy.sparse.csr_matrix, shape (T, d)
        The positional table.

    Examples
    --------
    The head of Lemma A.19 is within its exact worst-case error (``theory.sparse_variable.worst_case_error``) of the
    target on every context, and its norms are the exact ones:

    >>> import numpy as np
    {{example_a19}}
    >>> nc = NumericConstruction.build(c)
    >>> b = all_inputs(6)
    >>> err = np.abs(nc.forward(b) - target_values(c, b)).max()
    >>> ts.worst_case_error(c), bool(abs(err - float(ts.worst_case_error(c))) < 1e-12)
    (Fraction(9, 197), True)
    >>> nc.norms() == {k: float(v) for k, v in ts.exact_head_norms(c).items()}
    True
    >>> nc.attention(b[:1]).round(4).tolist()  # at [CLS]: the relevant positions 1 and 3
    [[0.0051, 0.4873, 0.0051, 0.4873, 0.0051, 0.0051, 0.0051]]
    """

    construction: ts.Construction
    emb: Embedding
    R: float
    W_Q: list[np.ndarray]
    W_K: list[np.ndarray]
    W_V: list[np.ndarray]
    W_C: list[np.ndarray]
    P: np.ndarray | sp.csr_matrix

    @classmethod
    def build(cls, c: ts.Construction, emb: Embedding | None = None) -> NumericConstruction:
        """Materialise ``c`` (default embedding: orthonormal with as many positional vectors as ``c`` names); the
        embedding's coherence must not exceed the one ``c`` was built for."""
        n_pos = 1 + max(n[1] for row in c.positions for n in row) if any(c.positions) else 1
        emb = emb or orthonormal_embedding(max(n_pos, c.T))
        if emb.coherence > c.coherence:
            raise ValueError(
                f"the construction assumes coherence Delta <= {c.coherence}, the embedding has {emb.coherence}: build "
                "it with the embedding's coherence"
            )
        R = float(c.R)
        k = _n_k(c)
        W_Q = [R * materialize(h.W_Q_unit, emb, k) for h in c.heads]
        W_K = [materialize(h.W_K, emb, k) for h in c.heads]
        W_V = [materialize(h.W_V, emb, k) for h in c.heads]
        W_C = [materialize(h.W_C, emb, c.n_out, left_k=k) for h in c.heads]
        entries = [(t, name[1], float(v)) for t, row in enumerate(c.positions) for name, v in row.items()]
        r, col, val = zip(*entries) if entries else ((), (), ())
        coef = sp.csr_matrix((val, (r, col)), shape=(c.T, emb.pos.shape[0]))
        P = coef @ emb.pos
        return cls(c, emb, R, W_Q, W_K, W_V, W_C, P)

    def _rows(self, W: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``X(b) W`` for a batch ``b`` ``(B, T)`` and ``W`` ``(d, n)``: ``(B, T + 1, n)`` with the [CLS] row last."""
        PW = np.asarray(self.P @ W)  # (T, k)
        if self.construction.mapping == "bag":
            rows = b[:, :, None] * PW[None]
        else:
            EW = self.emb.tok @ W  # (2, k)
            rows = PW[None] + EW[b]
        cls = np.broadcast_to((self.emb.cls @ W)[None, None], (b.shape[0], 1, W.shape[1]))
        return np.concatenate([rows, cls], axis=1)

    def attention(self, b: np.ndarray, head: int = 0) -> np.ndarray:
        """The attention weights of ``head`` at [CLS], ``(B, T + 1)`` (last column: [CLS] itself)."""
        b = np.asarray(b, dtype=np.int64)
        query = self.emb.cls @ self.W_Q[head]
        return softmax(self._rows(self.W_K[head] @ query[:, None], b)[:, :, 0])

    def forward(self, b: np.ndarray) -> np.ndarray:
        """The summed heads at [CLS]: ``sum_h softmax(x_CLS^T W_Q W_K^T X^T) X W_V W_C``, ``(B, n_out)``."""
        b = np.asarray(b, dtype=np.int64)
        if b.ndim != 2 or b.shape[1] != self.construction.T:
            raise ValueError(f"b must have shape (B, T = {self.construction.T}), got {b.shape}")
        out = np.zeros((b.shape[0], self.construction.n_out))
        for h in range(len(self.W_Q)):
            p = self.attention(b, h)
            out += np.einsum("bt,bto->bo", p, self._rows(self.W_V[h] @ self.W_C[h], b))
        return out

    def norms(self) -> dict[str, float]:
        """Frobenius norms of the first head's weights and, for Lemma A.20, ``||P^T||_{2,1} = sum_t ||P_t||``."""
        out = {
            "W_Q": float(np.linalg.norm(self.W_Q[0])),
            "W_K": float(np.linalg.norm(self.W_K[0])),
            "W_V": float(np.linalg.norm(self.W_V[0])),
            "W_C": float(np.linalg.norm(self.W_C[0])),
        }
        if self.construction.lemma == "A.20":
            sq = (self.P**2).sum(axis=1) if isinstance(self.P, np.ndarray) else self.P.multiply(self.P).sum(axis=1)
            out = {"P_21": float(np.sqrt(np.asarray(sq)).sum()), **out}
        return out


def _row_products(c: ts.Construction, gram: dict[int, dict[int, Fraction]], t: int | None, bit: int) -> list:
    """Exact ``(score / R, value)`` of every head for input row ``x = P_t + E_bit`` (``t = None``: the [CLS] row),
    from the named weights and the exact inner products ``gram[i][j] = <pos_i, pos_j>`` (token and [CLS] vectors
    orthonormal and orthogonal to the positional ones, App. A.2.1)."""

    def inner(u: tuple) -> Fraction:
        if t is None:
            return Fraction(int(u == ("cls",)))
        if u[0] == "pos":
            return sum((a * gram[u[1]][n[1]] for n, a in c.positions[t].items()), Fraction(0))
        return Fraction(int(u == ("tok", bit)))

    out = []
    for h in c.heads:
        query = h.W_Q_unit.apply_left({("cls",): Fraction(1)})
        key: dict = {}
        for a, u, w in h.W_K.terms:
            key[w] = key.get(w, Fraction(0)) + a * inner(u)
        mid: dict = {}
        for a, u, w in h.W_V.terms:
            mid[w] = mid.get(w, Fraction(0)) + a * inner(u)
        value = [Fraction(0)] * c.n_out
        for a, u, w in h.W_C.terms:
            value[w[1]] += a * mid.get(u, Fraction(0))
        out.append((sum((query[w] * v for w, v in key.items() if w in query), Fraction(0)), value))
    return out


def exact_head_errors(c: ts.Construction, emb: Embedding, b: np.ndarray, digits: int = 50) -> np.ndarray:
    """``max_j |head(b)_j - g(b)_j|`` of every context ``b`` ``(B, T)`` for a construction of the deterministic or
    trainable mapping (rows ``x_t = P_t + E_{b_t}``) in the embedding ``emb``, by a forward pass at ``digits`` digits: the scores
    ``R x_CLS^T W_Q W_K^T x_t`` and values ``x_t^T W_V W_C`` are exact rationals (times R) from the exact inner products
    of the positional vectors (:func:`cross_gram`), the softmax is evaluated with mpmath. Float64 cannot resolve these
    errors where they are far below 1 (their rounding is about ``R`` times the machine epsilon).

    Parameters
    ----------
    c : theory.sparse_variable.Construction
        A construction of the deterministic or trainable mapping.
    emb : Embedding
        The embedding (sign-vector or orthonormal).
    b : int array (B, T)
        Contexts of bits.
    digits : int
        Working precision of the softmax, >= 15.

    Returns
    -------
    float64 array (B,)
        The error of every context.

    Raises
    ------
    ValueError
        Another mapping, ``b`` of the wrong shape or not bits, or ``digits < 15``.

    Examples
    --------
    At the worst-case input the error is the exact ``theory.sparse_variable.worst_case_error``:

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from theory import sparse_variable as ts
    >>> c = ts.lemma_a19(40, (1, 3), Fraction(1, 10**6))
    >>> e = exact_head_errors(c, orthonormal_embedding(40), np.array([ts.worst_case_input(c)]))
    >>> abs(float(e[0]) / float(ts.worst_case_error(c)) - 1) < 1e-12
    True
    """
    c = _check_construction(c)
    emb = _check_embedding(emb)
    if c.mapping not in ("deterministic", "trainable"):
        raise InputError(
            f"exact_head_errors needs the deterministic or trainable mapping, got {c.mapping!r}", param="c"
        )
    b = np.asarray(b)
    if b.ndim != 2 or not np.issubdtype(b.dtype, np.integer) or b.shape[1] != c.T or not np.isin(b, (0, 1)).all():
        raise InputError(f"b must be a (B, T = {c.T}) array of bits, got shape {b.shape}", param="b")
    b = b.astype(np.int64)
    digits = check_count(digits, "digits", minimum=15, message=f"digits must be >= 15, got {digits!r:.80}")
    check_cost(
        digits,
        MAX_DIGITS,
        param="digits",
        value=digits,
        what="the working precision of the softmax",
        hint="50 digits resolve errors far below float64",
    )
    check_cost(
        b.shape[0] * (c.T + 1) * len(c.heads) * (c.n_out + 1) * digits,
        MAX_EXACT_ERROR_WORK,
        param="b",
        value=b.shape[0],
        what=f"the exact forward passes (contexts x (T + 1) x heads x (outputs + 1) x {digits} digits)",
        hint="pass fewer contexts",
    )
    used = sorted({u[1] for h in c.heads for wt in (h.W_K, h.W_V) for _, u, _ in wt.terms if u[0] == "pos"})
    table = sorted({n[1] for row in c.positions for n in row})
    gram = {i: dict(zip(table, row)) for i, row in zip(used, cross_gram(emb, used, table))}
    errors = np.empty(b.shape[0])
    with mpmath.workdps(digits):
        R = mpmath.mpf(str(sympy.N(c.R, digits + 10)))

        def weighted(prods: list) -> list:
            return [
                (mpmath.exp(R * k.numerator / k.denominator), [mpmath.mpf(v.numerator) / v.denominator for v in val])
                for k, val in prods
            ]

        rows = [[weighted(_row_products(c, gram, t, bit)) for bit in (0, 1)] for t in range(c.T)]
        cls_row = weighted(_row_products(c, gram, None, 0))
        for n, ctx in enumerate(b):
            out = [mpmath.mpf(0)] * c.n_out
            for h in range(len(c.heads)):
                picked = [rows[t][bit][h] for t, bit in enumerate(ctx)] + [cls_row[h]]
                Z = mpmath.fsum(w for w, _ in picked)
                for j in range(c.n_out):
                    out[j] += mpmath.fsum(w * val[j] for w, val in picked if val[j]) / Z
            target = c.target(ctx.tolist())
            errors[n] = float(max(abs(o - mpmath.mpf(g.numerator) / g.denominator) for o, g in zip(out, target)))
    return errors


def mlp_arrays(net: ts.ReluNet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W1, W2, w)`` of a Lemma A.25 network in float64.

    Parameters
    ----------
    net : theory.sparse_variable.ReluNet
        The exact network.

    Returns
    -------
    W1, W2, w : float64 arrays
        Shapes ``(d_f + 1, 4 n d_f)``, ``(4 n d_f + 1, 2n)`` and ``(2n,)``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from theory import sparse_variable as ts
    >>> rep = ts.symmetric_representation(5, (0, 2), [Fraction(0), Fraction(1), Fraction(0)])
    >>> [a.shape for a in mlp_arrays(rep.net)]  # n = 3 points, d_f = 1
    [(2, 12), (13, 6), (6,)]
    """
    if not isinstance(net, ts.ReluNet):
        raise InputError(f"net must be a theory.sparse_variable.ReluNet, got {net!r:.80}", param="net")
    W1 = np.array([[float(x) for x in row] for row in net.W1])
    W2 = np.array([[float(x) for x in row] for row in net.W2])
    return W1, W2, np.array([float(x) for x in net.w])


def mlp_forward(arrays: tuple[np.ndarray, np.ndarray, np.ndarray], y: np.ndarray) -> np.ndarray:
    """``relu([relu([y 1] W1) 1] W2) w`` for a batch ``y`` ``(B, d_f)``.

    Parameters
    ----------
    arrays : tuple of float arrays
        ``(W1, W2, w)`` (:func:`mlp_arrays`).
    y : float array (B, d_f)
        Inputs.

    Returns
    -------
    float64 array (B,)
        The outputs.

    Examples
    --------
    Equal to the exact ``values`` on the boxes around the ``points`` of Lemma A.25:

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from theory import sparse_variable as ts
    >>> net = ts.symmetric_representation(5, (0, 2), [Fraction(0), Fraction(1), Fraction(0)]).net
    >>> [str(p[0]) for p in net.points], [str(v) for v in net.values], str(net.delta)
    (['1', '0', '-1'], ['0', '1', '0'], '1/4')
    >>> mlp_forward(mlp_arrays(net), np.array([[1.2], [0.1], [-0.05], [-0.8]])).tolist()
    [0.0, 1.0, 1.0, 0.0]
    """
    if not isinstance(arrays, (tuple, list)) or len(arrays) != 3:
        raise InputError(f"arrays must be (W1, W2, w) from mlp_arrays, got {arrays!r:.80}", param="arrays")
    W1, W2, w = (_array(a, "arrays", ndim=nd) for a, nd in zip(arrays, (2, 2, 1)))
    if W2.shape[0] != W1.shape[1] + 1 or w.shape[0] != W2.shape[1]:
        raise InputError(
            f"arrays must be (W1, W2, w) of matching shapes, got {W1.shape}, {W2.shape}, {w.shape}", param="arrays"
        )
    y = _array(y, "y", ndim=2)
    if y.shape[1] + 1 != W1.shape[0]:
        raise InputError(f"y must have shape (B, d_f = {W1.shape[0] - 1}), got {y.shape}", param="y")
    ones = np.ones((y.shape[0], 1))
    h1 = np.maximum(np.concatenate([y, ones], axis=1) @ W1, 0.0)
    h2 = np.maximum(np.concatenate([h1, ones], axis=1) @ W2, 0.0)
    return h2 @ w


@dataclass
class NumericRepresentation:
    """A :class:`theory.sparse_variable.SparseRepresentation` in float64: heads, then the Lemma A.25 network.

    Attributes
    ----------
    heads : NumericConstruction
        The attention part.
    mlp : tuple of float arrays
        ``(W1, W2, w)`` of the network.
    rep : theory.sparse_variable.SparseRepresentation
        The exact representation.

    Examples
    --------
    Lemma A.23 with XOR of positions 1 and 2: the transformer + MLP computes it on every context:

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from theory import sparse_variable as ts
    >>> rep = ts.general_representation(4, (1, 2), [Fraction(v) for v in (0, 1, 1, 0)])
    >>> f = NumericRepresentation.build(rep)
    >>> b = all_inputs(4)
    >>> f.truth(b)[:8].tolist(), float(np.abs(f(b) - f.truth(b)).max()) < 1e-12
    ([0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], True)
    """

    heads: NumericConstruction
    mlp: tuple[np.ndarray, np.ndarray, np.ndarray]
    rep: ts.SparseRepresentation

    @classmethod
    def build(cls, rep: ts.SparseRepresentation, emb: Embedding | None = None) -> NumericRepresentation:
        return cls(NumericConstruction.build(rep.construction, emb), mlp_arrays(rep.net), rep)

    def __call__(self, b: np.ndarray) -> np.ndarray:
        """``f_tf+mlp(X(b))`` for a batch ``(B, T)``."""
        return mlp_forward(self.mlp, self.heads.forward(b))

    def truth(self, b: np.ndarray) -> np.ndarray:
        """The target ``f(b)`` in float64 (from the exact table)."""
        b = np.asarray(b, dtype=np.int64)
        s = self.rep.construction.s
        keys = b[:, list(self.rep.construction.support)] @ (1 << np.arange(s))
        lookup = np.array([float(self.rep.table[tuple((k >> j) & 1 for j in range(s))]) for k in range(2**s)])
        return lookup[keys]


# --------------------------------------------------------------------------------------------- inputs


def all_inputs(T: int) -> np.ndarray:
    """Every ``b in {0,1}^T``, ``(2^T, T)`` int64 (T <= 20).

    Parameters
    ----------
    T : int
        Context length, ``1 <= T <= 20``.

    Returns
    -------
    int64 array (2^T, T)
        Row k holds the bits of k (bit 0 first).

    Examples
    --------
    >>> all_inputs(2).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    >>> all_inputs(21)
    Traceback (most recent call last):
    ...
    theory._checks.LimitError: T = 21 is above the limit T <= 20 of all_inputs (2^T contexts); use random_inputs ...
    """
    T = check_count(T, "T", message=f"all_inputs enumerates 2^T contexts: need 1 <= T <= 20, got T = {T!r:.80}")
    check_cost(
        T,
        MAX_ALL_INPUTS_T,
        param="T",
        value=T,
        what="all_inputs (2^T contexts)",
        hint="use random_inputs for longer contexts",
    )
    k = np.arange(2**T)
    return ((k[:, None] >> np.arange(T)[None]) & 1).astype(np.int64)


def random_inputs(T: int, n: int, rng: np.random.Generator, p: float = 0.5) -> np.ndarray:
    """``n`` contexts with iid ``Bern(p)`` bits, ``(n, T)`` int64.

    Parameters
    ----------
    T : int
        Context length, >= 1.
    n : int
        Number of contexts, >= 1.
    rng : numpy.random.Generator
        Source of the bits.
    p : float
        Probability of a 1, in [0, 1].

    Returns
    -------
    int64 array (n, T)
        The contexts.

    Examples
    --------
    >>> import numpy as np
    >>> x = random_inputs(5, 1000, np.random.default_rng(0), p=0.25)
    >>> x.shape, bool(abs(x.mean() - 0.25) < 0.02)
    ((1000, 5), True)
    >>> random_inputs(5, 3, np.random.default_rng(0), p=1.0).tolist()
    [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]]
    """
    why = f"need T >= 1, n >= 1 and 0 <= p <= 1, got T = {T!r:.40}, n = {n!r:.40}, p = {p!r:.40}"
    T = check_count(T, "T", message=why)
    n = check_count(n, "n", message=why)
    p = check_real(p, "p", what="a probability in [0, 1]")
    if not 0 <= p <= 1:
        raise InputError(why, param="p")
    rng = check_rng(rng)
    check_allocation(array_bytes(T, itemsize=17), param="T", value=T, what="one context (uniforms, bools and bits)")
    check_work(n * T, param="n", value=n, what=f"the draws of n contexts of T = {T} bits", hint="use fewer contexts")
    check_allocation(
        array_bytes(n, T, itemsize=17), param="n", value=n, what=f"n contexts of T = {T} bits (uniforms, bools, bits)"
    )
    return (rng.random((n, T)) < p).astype(np.int64)


@fill_doc(_DOC)
def target_values(c: ts.Construction, b: np.ndarray) -> np.ndarray:
    """The function a construction approximates, vectorised from the relevant bits ``(B, n_out)``: Lemmas A.19/A.20
    ``g = (s - 2r)/s`` and ``g' = 1 - 2 b_I``; Lemma A.21 ``g = (r - s)/(r + 1)`` and ``g' = (b_I - 1)/(r + 1)``,
    with ``r = sum_{i in I} b_i`` (the float counterpart of :meth:`theory.sparse_variable.Construction.target`).

    Parameters
    ----------
    c : theory.sparse_variable.Construction
        The construction.
    b : int array (B, T)
        Contexts.

    Returns
    -------
    float64 array (B, n_out)
        The target at every context.

    Examples
    --------
    >>> import numpy as np
    {{example_a19}}
    >>> b = np.array([[0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [0, 1, 0, 1, 0, 0]])
    >>> target_values(c, b).tolist(), [[str(v) for v in c.target(row.tolist())] for row in b]
    ([[1.0], [0.0], [-1.0]], [['1'], ['0'], ['-1']])
    """
    c = _check_construction(c)
    rel = _bits(b, T=c.T)[:, list(c.support)].astype(np.float64)
    s, r = c.s, rel.sum(axis=1, keepdims=True)
    if c.lemma == "A.21":
        return (r - s) / (r + 1) if c.output == "scalar" else (rel - 1) / (r + 1)
    return (s - 2 * r) / s if c.output == "scalar" else 1 - 2 * rel


@fill_doc(_DOC)
def relevant_keys(c: ts.Construction, b: np.ndarray, symmetric: bool) -> np.ndarray:
    """The level of each context: ``r = sum_{i in I} b_i`` (symmetric) or ``sum_j b_{I_j} 2^j`` (general).

    Parameters
    ----------
    c : theory.sparse_variable.Construction
        The construction (its support I).
    b : int array (B, T)
        Contexts.
    symmetric : bool
        Count the relevant ones (True) or read them as a binary number (False).

    Returns
    -------
    int64 array (B,)
        The levels.

    Examples
    --------
    >>> import numpy as np
    {{example_a19}}
    >>> b = np.array([[0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 1, 0, 1, 0, 0]])
    >>> relevant_keys(c, b, True).tolist(), relevant_keys(c, b, False).tolist()
    ([1, 1, 2], [1, 2, 3])
    """
    c = _check_construction(c)
    if not isinstance(symmetric, (bool, np.bool_)):
        raise InputError(f"symmetric must be True or False, got {symmetric!r:.80}", param="symmetric")
    if not symmetric and c.s > 62:
        raise InputError(f"the binary key of s = {c.s} relevant bits needs s <= 62 (int64)", param="symmetric")
    rel = _bits(b, T=c.T)[:, list(c.support)]
    return rel.sum(axis=1) if symmetric else rel @ (1 << np.arange(c.s))


@fill_doc(_DOC)
def worst_errors_by_level(
    outputs: np.ndarray, truth: np.ndarray, keys: np.ndarray, n_keys: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each key (a value level of the target), the output farthest from the truth among the inputs with that
    key, and how many inputs had it: ``(worst_outputs, counts)`` (NaN where a key never occurred).

    Parameters
    ----------
    outputs, truth : float arrays (B,)
        Outputs and targets.
    keys : int array (B,)
        The level of each input (:func:`relevant_keys`).
    n_keys : int
        Number of levels.

    Returns
    -------
    worst_outputs : float64 array (n_keys,)
        The worst output per level.
    counts : int64 array (n_keys,)
        Inputs per level.

    Examples
    --------
    The Lemma A.19 head stays near the levels 1, 0, -1 of :math:`(s - 2r)/s`, s = 2:

    {{example_a19}}
    >>> b = all_inputs(6)
    >>> out = NumericConstruction.build(c).forward(b)[:, 0]
    >>> worst, counts = worst_errors_by_level(out, target_values(c, b)[:, 0], relevant_keys(c, b, True), 3)
    >>> worst.round(6).tolist(), counts.tolist()
    ([0.954315, 0.020305, -0.954315], [16, 32, 16])
    """
    outputs, truth = _array(outputs, "outputs", ndim=1), _array(truth, "truth", ndim=1)
    keys = np.asarray(keys)
    if keys.dtype.kind not in "iu":
        keys = _array(keys, "keys", ndim=1)
        if not np.array_equal(keys, np.round(keys)):
            raise InputError("keys must be integer levels", param="keys")
        keys = keys.astype(np.int64)
    if not (keys.shape == outputs.shape == truth.shape):
        raise InputError(
            f"outputs, truth and keys must have one common length, got {outputs.shape}, {truth.shape}, {keys.shape}",
            param="keys",
        )
    n_keys = check_count(n_keys, "n_keys")
    check_work(
        n_keys * (keys.size + STEP_COST),
        param="n_keys",
        value=n_keys,
        what=f"the levels (n_keys x {keys.size} inputs)",
        hint="use the number of levels of the target",
    )
    if keys.size and (keys.min() < 0 or keys.max() >= n_keys):
        raise InputError(f"keys must lie in [0, n_keys = {n_keys}), got [{keys.min()}, {keys.max()}]", param="keys")
    worst = np.full(n_keys, np.nan)
    counts = np.bincount(keys, minlength=n_keys)
    err = np.abs(outputs - truth)
    for k in range(n_keys):
        idx = np.flatnonzero(keys == k)
        if idx.size:
            worst[k] = outputs[idx[np.argmax(err[idx])]]
    return worst, counts


# --------------------------------------------------------------------------------------------- Lemma 4.7, Cor. A.7


def softmax(z: np.ndarray) -> np.ndarray:
    """Softmax along the last axis (max-shifted).

    Parameters
    ----------
    z : float array (..., T)
        Scores.

    Returns
    -------
    float64 array (..., T)
        Probabilities along the last axis.

    Examples
    --------
    >>> import numpy as np
    >>> softmax(np.array([0.0, np.log(3.0)])).round(12).tolist(), softmax(np.array([1000.0, 0.0])).tolist()
    ([0.25, 0.75], [1.0, 0.0])
    """
    z = _array(z, "z", min_ndim=1)
    if z.shape[-1] == 0:
        raise InputError("z must have a non-empty last axis", param="z")
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_l11(theta: np.ndarray) -> np.ndarray:
    """``||J softmax(theta)||_{1,1}`` computed entry by entry from ``J = diag(p) - p p^T`` (rows of ``theta``).

    Parameters
    ----------
    theta : float array (T,) or (B, T)
        Scores.

    Returns
    -------
    float64 array (B,)
        The norm per row.

    Examples
    --------
    At the uniform p it is the supremum :math:`2(1 - 1/T)` (``theory.sparse_variable.softmax_l11_sup``):

    >>> import numpy as np
    >>> from theory import sparse_variable as ts
    >>> softmax_l11(np.zeros(4)).tolist(), ts.softmax_l11_sup(4)
    ([1.5], Fraction(3, 2))
    """
    theta = np.atleast_2d(_array(theta, "theta", min_ndim=1))
    if theta.ndim != 2 or theta.shape[1] == 0:
        raise InputError(f"theta must have shape (T,) or (B, T), got {theta.shape}", param="theta")
    check_allocation(
        3 * array_bytes(theta.shape[0], theta.shape[1], theta.shape[1]),
        param="theta",
        value=theta.shape,
        what="the softmax Jacobians (B, T, T)",
    )
    p = softmax(theta)
    J = p[:, :, None] * (np.eye(p.shape[1])[None] - p[:, None, :])
    return np.abs(J).sum(axis=(1, 2))


def softmax_linf_to_l1_ratio(theta1: np.ndarray, theta2: np.ndarray) -> np.ndarray:
    """``||softmax(theta1) - softmax(theta2)||_1 / ||theta1 - theta2||_inf`` row by row.

    Parameters
    ----------
    theta1, theta2 : float arrays (..., T)
        Two score vectors per row (different).

    Returns
    -------
    float64 array (...)
        The ratio per row.

    Examples
    --------
    A small perturbation at p = (1/2, 1/2) attains the sharp constant 1
    (``theory.sparse_variable.softmax_linf_to_l1_constant``):

    >>> import numpy as np
    >>> from theory import sparse_variable as ts
    >>> softmax_linf_to_l1_ratio(np.zeros(2), np.array([1e-6, -1e-6])).round(6).tolist(), ts.softmax_linf_to_l1_constant()
    (1.0, Fraction(1, 1))
    """
    theta1, theta2 = _array(theta1, "theta1", min_ndim=1), _array(theta2, "theta2", min_ndim=1)
    if theta1.shape != theta2.shape:
        raise InputError(
            f"theta1 and theta2 must have the same shape, got {theta1.shape} and {theta2.shape}", param="theta2"
        )
    num = np.abs(softmax(theta1) - softmax(theta2)).sum(axis=-1)
    den = np.abs(theta1 - theta2).max(axis=-1)
    if np.any(den == 0):
        raise InputError(
            "theta2 must differ from theta1 in every row (the ratio divides by their distance)", param="theta2"
        )
    return num / den


def lemma47_sides(
    X: np.ndarray,
    z: np.ndarray,
    params: tuple[np.ndarray, np.ndarray],
    params_hat: tuple[np.ndarray, np.ndarray],
    sigma: str = "identity",
) -> tuple[float, float, float]:
    r"""Lemma 4.7 for one Transformer head ``f = sigma(W_V^T X^T softmax(X W_QK^T z))`` and one input.

    Returns ``(lhs, score_term, in_term)``: ``lhs = ||f(theta) - f(theta_hat)||``, ``score_term = C_Norm L_out B_in
    B_X ||Score - Score_hat||_inf`` with ``C_Norm = 2`` (Cor. A.7), ``L_out = 1`` (identity or tanh),
    ``B_in = ||W_V||_2`` (spectral; ``||W_V^T x|| <= ||W_V||_2 ||x||``) and ``B_X = max_t ||x_t||``, and
    ``in_term = L_out ||phi_in(X) - phi_in_hat(X)||_{2,inf}`` (largest row norm). The lemma says lhs <= sum of terms.
    ``B_in`` is the larger spectral norm of the two parameter sets (the class bound).

    Parameters
    ----------
    X : float array (T, d)
        The input rows.
    z : float array (d,)
        The query.
    params, params_hat : tuple of float arrays
        ``(W_QK (d, d), W_V (d, k))`` before and after the perturbation.
    sigma : str
        ``"identity"`` or ``"tanh"``.

    Returns
    -------
    lhs, score_term, in_term : float
        The two sides of the lemma (the right side is ``score_term + in_term``).

    Examples
    --------
    Two tokens :math:`\pm e_1` whose scores move by :math:`\pm 0.1`: the head moves by :math:`\tanh(0.1)`, about half
    of the bound (the sharp ratio 1/2 of ``theory.sparse_variable.lemma47_sharp_ratios``):

    >>> import numpy as np
    >>> X, z, W_V = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, 0.0]), np.array([[1.0], [0.0]])
    >>> lhs, score_term, in_term = lemma47_sides(X, z, (np.zeros((2, 2)), W_V), (0.1 * np.eye(2), W_V))
    >>> round(lhs, 12) == round(float(np.tanh(0.1)), 12), round(score_term, 12), in_term
    (True, 0.2, 0.0)
    """
    activations: dict[str, Callable[[np.ndarray], np.ndarray]] = {"identity": lambda a: a, "tanh": np.tanh}
    if not isinstance(sigma, str) or sigma not in activations:
        raise InputError(f"sigma must be 'identity' or 'tanh', got {sigma!r:.80}", param="sigma")
    act = activations[sigma]
    X = _array(X, "X", ndim=2)
    z = _array(z, "z", ndim=1)
    if X.shape[0] == 0 or z.shape != (X.shape[1],):
        raise InputError(f"need X (T, d) with T >= 1 and z (d,), got {X.shape} and {z.shape}", param="z")
    pairs = []
    for name, pair in (("params", params), ("params_hat", params_hat)):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise InputError(f"{name} must be a pair (W_QK, W_V), got {pair!r:.80}", param=name)
        W_qk, W_v = _array(pair[0], name, ndim=2), _array(pair[1], name, ndim=2)
        d = X.shape[1]
        if W_qk.shape != (d, d) or W_v.shape[0] != d or W_v.shape[1] == 0:
            raise InputError(
                f"{name} must be (W_QK (d, d), W_V (d, k)) with d = {d}, got {W_qk.shape}, {W_v.shape}", param=name
            )
        pairs.append((W_qk, W_v))
    (W_QK, W_V), (W_QK_hat, W_V_hat) = pairs
    if W_V.shape != W_V_hat.shape:
        raise InputError(f"params_hat must have the shapes of params, got W_V {W_V_hat.shape}", param="params_hat")
    score, score_hat = X @ (W_QK.T @ z), X @ (W_QK_hat.T @ z)
    f = act(W_V.T @ (X.T @ softmax(score)))
    f_hat = act(W_V_hat.T @ (X.T @ softmax(score_hat)))
    B_in = max(np.linalg.norm(W_V, 2), np.linalg.norm(W_V_hat, 2))
    B_X = float(np.linalg.norm(X, axis=1).max())
    score_term = float(ts.C_SOFTMAX) * B_in * B_X * float(np.abs(score - score_hat).max())
    in_term = float(np.linalg.norm(X @ W_V - X @ W_V_hat, axis=1).max())
    return float(np.linalg.norm(f - f_hat)), float(score_term), in_term


def _random_head(rng: np.random.Generator, T: int, d: int, k: int, scale: float) -> tuple:
    X = rng.normal(size=(T, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))  # ||x_t|| <= B_X = 1
    z = rng.normal(size=d)
    z /= np.linalg.norm(z)
    return X, z, (scale * rng.normal(size=(d, d)), rng.normal(size=(d, k)))


def _adversarial_score(eps: float) -> tuple:
    """Two tokens ``x = +-e_1`` with equal scores; the score parameters move the scores by ``+-eps``: the ratio of
    Lemma 4.7 is ``tanh(eps)/(2 eps)`` (close to the sharp 1/2)."""
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    z = np.array([1.0, 0.0])
    W_V = np.array([[1.0], [0.0]])
    zero = np.zeros((2, 2))
    return X, z, (zero, W_V), (eps * np.eye(2), W_V)


def _adversarial_in(rng: np.random.Generator, T: int, d: int, k: int) -> tuple:
    """Equal tokens and a value change ``W_V -> W_V + D``: the head changes by exactly ``D^T x`` (ratio 1)."""
    x = rng.normal(size=d)
    x /= np.linalg.norm(x)
    X = np.repeat(x[None], T, axis=0)
    W_QK, W_V = rng.normal(size=(d, d)), rng.normal(size=(d, k))
    return X, x, (W_QK, W_V), (W_QK, W_V + 0.1 * rng.normal(size=(d, k)))


def lemma47_ratios(
    n_random: int, rng: np.random.Generator, T: int = 16, d: int = 6, k: int = 4, eps: float = 1e-4
) -> dict[str, float]:
    """Largest ``lhs / rhs`` of Lemma 4.7 over ``n_random`` random draws of each kind and the adversarial cases:
    perturbing the score parameters only (``"score"``), the value parameters only (``"in"``) or both (``"both"``),
    with identity and tanh outputs, random scales and perturbation sizes. Returns the maxima and the counts.
    Refused before any draw (LimitError naming ``n_random``) when the work ``(n_random + 4) (6 (T d + d^2 + d k) + 60
    STEP_COST)`` exceeds :func:`numerics.limits.max_work`: a draw is about 60 numpy calls of
    :data:`numerics.limits.STEP_COST` each (0.3-0.36 ms on a loaded 2-core machine).

    Parameters
    ----------
    n_random : int
        Random draws per kind.
    rng : numpy.random.Generator
        Source of the draws.
    T, d, k : int
        Context length, model and value dimensions of the random heads.
    eps : float
        Smallest score perturbation of the adversarial case.

    Returns
    -------
    dict of str to float
        The largest ratio for ``"score"``, ``"in"`` and ``"both"``.

    Examples
    --------
    Never above 1, and close to the sharp suprema 1/2 and 1 (``theory.sparse_variable.lemma47_sharp_ratios``):

    >>> import numpy as np
    >>> r = lemma47_ratios(20, np.random.default_rng(0))
    >>> {kind: round(float(v), 6) for kind, v in r.items()}
    {'score': 0.5, 'in': 1.0, 'both': 1.0}
    """
    n_random = check_count(n_random, "n_random", minimum=0, why="random draws per kind")
    rng = check_rng(rng)
    T, d, k = (check_count(v, name) for v, name in ((T, "T"), (d, "d"), (k, "k")))
    eps = check_real(eps, "eps", what="a positive finite perturbation")
    if not eps > 0:
        raise InputError(f"eps must be a positive finite perturbation, got {eps!r}", param="eps")
    for name, value, entries in (("T", T, T * d), ("d", d, d * d + d * k), ("k", k, d * k)):
        check_allocation(
            8 * array_bytes(entries), param=name, value=value, what="a random head (X (T, d), W_QK (d, d), W_V (d, k))"
        )
    check_work(
        (n_random + 4) * (6 * (T * d + d * d + d * k) + 60 * STEP_COST),
        param="n_random",
        value=n_random,
        what=f"the random heads ((n_random + 4) (6 (T d + d^2 + d k) + 60 STEP_COST), T d + d^2 + d k = "
        f"{format_count(T * d + d * d + d * k)} entries)",
        hint="use fewer draws",
    )
    best = {"score": 0.0, "in": 0.0, "both": 0.0}
    for i in range(n_random):
        sigma = ("identity", "tanh")[i % 2]
        X, z, (W_QK, W_V) = _random_head(rng, T, d, k, scale=float(10 ** rng.uniform(-1, 1.5)))
        size = float(10 ** rng.uniform(-6, 0))
        dQ, dV = size * rng.normal(size=W_QK.shape), size * rng.normal(size=W_V.shape)
        for kind, hat in (("score", (W_QK + dQ, W_V)), ("in", (W_QK, W_V + dV)), ("both", (W_QK + dQ, W_V + dV))):
            lhs, a, b = lemma47_sides(X, z, (W_QK, W_V), hat, sigma)
            best[kind] = max(best[kind], lhs / (a + b))
    for eps_i in (eps, 10 * eps, 0.1):
        X, z, p, ph = _adversarial_score(eps_i)
        lhs, a, b = lemma47_sides(X, z, p, ph)
        best["score"] = max(best["score"], lhs / (a + b))
    for _ in range(4):
        X, z, p, ph = _adversarial_in(rng, T, d, k)
        lhs, a, b = lemma47_sides(X, z, p, ph)
        best["in"] = max(best["in"], lhs / (a + b))
        best["both"] = max(best["both"], lhs / (a + b))
    return best


# --------------------------------------------------------------------------------------------- Prop. 4.8


@fill_doc(_DOC)
def shattering_inputs(T: int) -> np.ndarray:
    """The inputs of the proof of Prop. 4.8: ``X^(i)_t = (cos(2 pi t/T), sin(2 pi t/T), bit_i(t))`` for
    ``i < floor(log2 T)`` (bit 0 = least significant) and ``t = 0..T-1``; shape ``(k, T, 3)``.

    Parameters
    ----------
    {{context}}

    Returns
    -------
    float64 array (floor(log2 T), T, 3)
        The inputs.

    Examples
    --------
    >>> X = shattering_inputs(4)
    >>> X.shape, X[1, :, 2].tolist()  # bit 1 of t = 0..3
    ((2, 4, 3), [0.0, 0.0, 1.0, 1.0])
    """
    k = ts.shattering_size(T)
    check_allocation(6 * array_bytes(k, T, 3), param="T", value=T, what=f"the inputs (floor(log2 T) = {k}, T, 3)")
    t = np.arange(T)
    ang = 2 * np.pi * t / T
    out = np.zeros((k, T, 3))
    out[:, :, 0], out[:, :, 1] = np.cos(ang), np.sin(ang)
    out[:, :, 2] = (t[None] >> np.arange(k)[:, None]) & 1
    return out


@fill_doc(_DOC)
def shattering_patterns(T: int) -> tuple[np.ndarray, np.ndarray]:
    r"""The heads ``w_QK^(s) = T^2 (cos(2 pi s/T), sin(2 pi s/T), 0)``, ``w_V = e_3`` for ``s < 2^k``, evaluated on
    :func:`shattering_inputs`: the sign patterns ``f(X^(i)) > 1/2`` ``(2^k, k)`` and the weight each head puts on
    its own position ``s`` (``(2^k, k)``).

    Parameters
    ----------
    {{context}}

    Returns
    -------
    patterns : bool array (2^k, k)
        Row s is the bits of s: every pattern is realised.
    weights : float64 array (2^k, k)
        Attention on position s, above the bound :math:`1/(1 + \sqrt{\pi/8})` of the proof.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import sparse_variable as ts
    >>> patterns, weights = shattering_patterns(8)
    >>> patterns.astype(int).tolist()
    [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]]
    >>> bool(weights.min() > float(ts.prop48_target_weight_bound()))
    True
    """
    k = ts.shattering_size(T)
    check_allocation(
        4 * array_bytes(2**k, k, T),
        param="T",
        value=T,
        what=f"the scores of the 2^k = {format_count(2**k)} heads on k = {k} inputs of T tokens",
    )
    X = shattering_inputs(T)
    s = np.arange(2**k)
    W = float(T) ** 2 * np.stack([np.cos(2 * np.pi * s / T), np.sin(2 * np.pi * s / T), np.zeros(s.size)], axis=1)
    scores = np.einsum("itc,sc->sit", X, W)  # (2^k, k, T)
    p = softmax(scores)
    f = np.einsum("sit,it->si", p, X[:, :, 2])
    return f > 0.5, p[s, :, s]


# --------------------------------------------------------------------------------------------- Sec. 4.6 data


def and_labels(x: np.ndarray, support: Sequence[int]) -> np.ndarray:
    """``y = AND_{i in I} x_i`` for bits ``x`` ``(..., T)`` (int64 0/1).

    Parameters
    ----------
    x : int array (..., T)
        Bits.
    support : sequence of int
        I.

    Returns
    -------
    int64 array (...)
        The labels.

    Examples
    --------
    >>> import numpy as np
    >>> and_labels(np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1]]), [0, 1]).tolist()
    [1, 0, 1]
    """
    x = np.asarray(x)
    if x.ndim < 1 or x.shape[-1] < 1 or not np.issubdtype(x.dtype, np.integer):
        raise InputError(f"x must be an integer array of bits (..., T), got {x.dtype} {x.shape}", param="x")
    try:
        idx = ts.check_support(x.shape[-1], support)
    except (TypeError, ValueError) as err:
        raise InputError(str(err), param="support") from None
    return np.all(x[..., list(idx)] == 1, axis=-1).astype(np.int64)


def consistent_supports(x: np.ndarray, y: np.ndarray, s: int, limit: int | None = None) -> list[tuple[int, ...]]:
    """Every s-subset J of positions with ``AND_J(x) = y`` on the whole sample (``x`` ``(m, T)`` bits).

    J must lie inside the positions that are 1 in every positive example, and hit a 0 of every negative one. With
    ``limit``, the search stops once ``limit`` subsets are found.

    Parameters
    ----------
    x : int array (m, T)
        The sample's bits.
    y : int array (m,)
        Its labels.
    s : int
        Size of the subsets.
    limit : int, optional
        Stop after this many subsets.

    Returns
    -------
    list of tuple of int
        The consistent subsets, in lexicographic order.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1, 1, 0, 1], [1, 1, 1, 0], [0, 1, 1, 1]])
    >>> y = and_labels(x, [0, 1])
    >>> y.tolist(), consistent_supports(x, y, 2)
    ([1, 1, 0], [(0, 1)])
    >>> consistent_supports(x[1:2], y[1:2], 2)  # one positive example: any 2 of its ones
    [(0, 1), (0, 2), (1, 2)]
    """
    x = np.asarray(x)
    if x.ndim != 2 or not np.issubdtype(x.dtype, np.integer):
        raise InputError(f"x must be an (m, T) integer array of bits, got {x.dtype} {x.shape}", param="x")
    x = x.astype(np.int64)
    y = np.asarray(y)
    if y.shape != (x.shape[0],) or not np.issubdtype(y.dtype, np.integer):
        raise InputError(f"y must hold one integer label per row of x, got {y.dtype} {y.shape}", param="y")
    T = x.shape[1]
    try:
        ts.check_sparsity(T, s)
    except ValueError as err:
        raise InputError(str(err), param="s") from None
    if limit is not None:
        limit = check_count(limit, "limit")
    pos = x[y == 1]
    cand = np.flatnonzero(pos.all(axis=0)) if len(pos) else np.arange(T)
    check_cost(
        math.comb(cand.size, s),
        MAX_SUPPORTS,
        param="s",
        value=s,
        what=f"the number of s-subsets of the {cand.size} candidate positions",
        hint="use a larger sample (fewer candidates) or a smaller s",
    )
    zeros = x[y == 0][:, cand] == 0  # (n_neg, |cand|)
    out = []
    for J in itertools.combinations(range(cand.size), s):
        if zeros.shape[0] == 0 or zeros[:, list(J)].any(axis=1).all():
            out.append(tuple(int(cand[j]) for j in J))
            if limit is not None and len(out) >= limit:
                break
    return out


class UnidentifiableSample(ValueError):
    """No training set of the requested size was identifiable within the allowed draws.

    Parameters
    ----------
    message : str
        What was tried (a ValueError message).

    Examples
    --------
    >>> import numpy as np
    >>> sample_identifiable_and(8, 1, (0, 1, 2), 0.5, np.random.default_rng(0), max_tries=5)
    Traceback (most recent call last):
    ...
    numerics.sparse_variable.UnidentifiableSample: no identifiable sample of size m = 1 in 5 draws (T = 8, s = 3)
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)


def sample_identifiable_and(
    T: int, m: int, support: Sequence[int], p: float, rng: np.random.Generator, max_tries: int = 10_000
) -> tuple[np.ndarray, np.ndarray, int]:
    """App. A.3.1: ``m`` samples of iid ``Bern(p)`` bits labelled by ``AND_I``, redrawn while another s-subset is
    consistent with them. Returns ``(x, y, rejections)``.

    Parameters
    ----------
    T : int
        Context length.
    m : int
        Sample size, >= 1.
    support : sequence of int
        I, the AND's positions.
    p : float
        Probability of a 1, in (0, 1).
    rng : numpy.random.Generator
        Source of the samples.
    max_tries : int
        Draws before giving up.

    Returns
    -------
    x : int64 array (m, T)
        The bits.
    y : int64 array (m,)
        The labels (at least one positive).
    rejections : int
        Samples redrawn.

    Raises
    ------
    ValueError
        Invalid T, s, m or p, or no identifiable sample within ``max_tries`` draws (m too small).

    Examples
    --------
    >>> import numpy as np
    >>> x, y, rejections = sample_identifiable_and(8, 12, (0, 1, 2), 0.7, np.random.default_rng(0))
    >>> x.shape, consistent_supports(x, y, 3)  # I is the only consistent 3-subset
    ((12, 8), [(0, 1, 2)])
    """
    try:
        I = ts.check_support(T, support)
    except (TypeError, ValueError) as err:
        raise InputError(str(err), param="support" if isinstance(T, int) and not isinstance(T, bool) else "T") from None
    T = int(T)
    why = f"need m >= 1 and 0 < p < 1, got m = {m!r:.40}, p = {p!r:.40}"
    m = check_count(m, "m", message=why)
    p = check_real(p, "p", what="a probability in (0, 1)")
    if not 0 < p < 1:
        raise InputError(why, param="p")
    rng = check_rng(rng)
    max_tries = check_count(max_tries, "max_tries")
    check_allocation(array_bytes(T, itemsize=17), param="T", value=T, what="one context (uniforms, bools and bits)")
    check_allocation(array_bytes(m, T, itemsize=17), param="m", value=m, what=f"a sample of m contexts of T = {T} bits")
    check_work(
        max_tries * (3 * m * T + STEP_COST),
        param="max_tries",
        value=max_tries,
        what=f"the draws (max_tries x m x T = {format_count(m * T)} bits)",
        hint="use fewer tries",
    )
    for tries in range(max_tries):
        x = random_inputs(T, m, rng, p)
        y = and_labels(x, I)
        if y.sum() > 0 and consistent_supports(x, y, len(I), limit=2) == [I]:
            return x, y, tries
    raise UnidentifiableSample(f"no identifiable sample of size m = {m} in {max_tries} draws (T = {T}, s = {len(I)})")


def sample_threshold(ms: Sequence[int], success_rates: Sequence[float], level: float = 0.8) -> float:
    """Fig. 4.2's threshold: the smallest m of the grid whose success rate is at least ``level`` (inf if none).

    Parameters
    ----------
    ms : sequence of int
        The sample sizes.
    success_rates : sequence of float
        The success rate at each.
    level : float
        The rate to reach.

    Returns
    -------
    float
        The threshold, or inf.

    Examples
    --------
    >>> sample_threshold([10, 20, 40, 80], [0.1, 0.5, 0.85, 1.0]), sample_threshold([10, 20], [0.1, 0.2])
    (40.0, inf)
    """
    for name, values in (("ms", ms), ("success_rates", success_rates)):
        if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
            raise InputError(f"{name} must be a sequence of numbers, got {values!r:.80}", param=name)
    if len(ms) != len(success_rates) or len(ms) == 0:
        raise InputError(
            f"ms and success_rates must have one common length >= 1, got {len(ms)} and {len(success_rates)}",
            param="success_rates",
        )
    sizes = [check_real(m, "ms", what="a positive sample size") for m in ms]
    if min(sizes) <= 0:
        raise InputError(f"ms must hold positive sample sizes, got {list(ms)[:8]}", param="ms")
    rates = [check_real(r, "success_rates", what="a success rate in [0, 1]") for r in success_rates]
    if not all(0 <= r <= 1 for r in rates):
        raise InputError(f"success_rates must lie in [0, 1], got {list(success_rates)[:8]}", param="success_rates")
    level = check_real(level, "level", what="a rate in [0, 1]")
    if not 0 <= level <= 1:
        raise InputError(f"level must be a rate in [0, 1], got {level!r}", param="level")
    hits = [m for m, r in zip(sizes, rates) if r >= level]
    return float(min(hits)) if hits else float("inf")


def log_trend(Ts: Sequence[int], thresholds: Sequence[float], info_bits: Sequence[float]) -> dict[str, float]:
    r"""The statistics of the Fig. 4.2 trend test.

    ``slope_per_lnT``: least-squares slope of m(T) against ln T; ``ratio_spread``: ``max/min`` of
    ``m(T) / log2 C(T, 3)`` (about 1 when m(T) grows like the information bound); ``exponent``: the least-squares
    ``theta`` (with intercept) in ``ln(m/L) = c + theta ln(T/L)``, ``L = log2 C(T, 3)``, i.e. in the family
    ``m ∝ L^(1 - theta) T^theta`` joining the log law (``theta = 0``) and the linear law (``theta = 1``);
    ``rss_log`` and ``rss_linear``: the residual sums of squares, in ln m, of the best fits ``m = a L`` and
    ``m = b T``. As ``rss(theta_0) = rss_min + S_xx (theta - theta_0)^2``, ``rss_log <= rss_linear`` exactly when
    ``exponent <= 1/2``.

    Parameters
    ----------
    Ts : sequence of int
        Context lengths.
    thresholds : sequence of float
        The sample threshold m(T) at each.
    info_bits : sequence of float
        ``L = log2 C(T, 3)`` at each.

    Returns
    -------
    dict of str to float
        ``slope_per_lnT``, ``ratio_spread``, ``exponent``, ``rss_log``, ``rss_linear``, ``growth`` (``m`` last over
        first) and ``T_growth`` (``T`` last over first).

    Raises
    ------
    ValueError
        Fewer than two T, lengths that differ, a non-positive or non-finite value, or all ``T/L`` equal.

    Examples
    --------
    Thresholds exactly twice the information bound follow the log law: exponent 0, ratio spread 1:

    >>> from theory import sparse_variable as ts
    >>> Ts = [16, 32, 64, 128]
    >>> info = [float(ts.and_information_bound(T)) for T in Ts]
    >>> r = log_trend(Ts, [2 * L for L in info], info)
    >>> round(r["exponent"], 12), round(r["ratio_spread"], 12), r["rss_log"] < r["rss_linear"]
    (0.0, 1.0, True)
    """
    arrays = []
    for name, values in (("Ts", Ts), ("thresholds", thresholds), ("info_bits", info_bits)):
        try:
            a = np.asarray(values, float)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"{name} must be a sequence of numbers, got {values!r:.80}", param=name) from None
        if a.ndim != 1:
            raise InputError(f"{name} must be a sequence of numbers, got {values!r:.80}", param=name)
        arrays.append(a)
    T, m, info = arrays
    if not (len(T) == len(m) == len(info) >= 2):
        raise ValueError(
            f"Ts, thresholds and info_bits must have one common length >= 2, got {len(T)}, {len(m)}, {len(info)}"
        )
    if not all(np.isfinite(a).all() and (a > 0).all() for a in (T, m, info)):
        raise ValueError("Ts, thresholds and info_bits must be finite and positive")
    x, y = np.log(T / info), np.log(m / info)
    sxx = float(((x - x.mean()) ** 2).sum())
    if sxx == 0.0:
        raise ValueError("T / log2 C(T, 3) must take at least two values (no exponent to fit)")
    theta = float(((x - x.mean()) * (y - y.mean())).sum() / sxx)
    z = np.log(m / T)
    ratio = m / info
    return {
        "slope_per_lnT": float(np.polyfit(np.log(T), m, 1)[0]),
        "ratio_spread": float(ratio.max() / ratio.min()),
        "exponent": theta,
        "rss_log": float(((y - y.mean()) ** 2).sum()),
        "rss_linear": float(((z - z.mean()) ** 2).sum()),
        "growth": float(m[-1] / m[0]),
        "T_growth": float(T[-1] / T[0]),
    }
