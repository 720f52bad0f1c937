r"""Finite-group composition in float64: the dataset, real orthogonal irreps, networks built from
``theory.finite_groups`` and ``theory.groups``, isotypic power of neurons, class weights from tau and the
character-level LP (Edelman thesis Ch. 7, Theorem 7.9, App. D.8-D.9; ``docs/groups.md``).

Task (Edelman Ch. 7, Sec. 7.6 and App. D.8): all :math:`|G|^2` pairs :math:`(a,b)\mapsto ab`
of a finite group, enumerated row-major (point index :math:`a|G| + b`), one-hot inputs passed as
indices; a network for it is a :class:`numerics.margins.HomogeneousNetwork` with ``U (m, 2, |G|)``,
``W (m, |G|)`` and degree 2.

Real irreps (float64; the recipes are in ``docs/groups.md``), by method:

* ``"young"``: Young's orthogonal form for S_n (exact generators from ``theory.finite_groups``, all elements by
  breadth-first search with :math:`R(g\circ s_i) = R(g)R(s_i)`);
* ``"closed"``: D_n rotation/reflection matrices and 1-dim characters (exact, converted to float);
* ``"kron"``: direct products, Kronecker products of the factors' irreps;
* ``"commutant"``: any other totally real group (A_5, ...): restrict a random symmetric element of the
  right-regular commutant to the isotypic subspace and take one eigenspace of multiplicity d_R;
  :math:`R(g) = Q^\top L(g) Q` (numerical).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy
from scipy.optimize import linprog

from theory import finite_groups as fg
from theory import groups as tg
from theory._checks import InputError, as_list, as_number, check_positive_int, format_count
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation, check_real
from .margins import HomogeneousNetwork, check_network

__all__ = [
    "CharacterLPResult",
    "GroupTask",
    "IrrepDiagnostics",
    "character_lp",
    "character_matrix",
    "class_weights",
    "construction_network",
    "irrep_method",
    "irrep_power",
    "isotypic_projectors",
    "neuron_irrep_diagnostics",
    "optimal_neuron_network",
    "random_network",
    "real_irreps",
]


def _group(G: fg.FiniteGroup | str) -> fg.FiniteGroup:
    return fg.as_group(G)


_BEYOND_ANY_MEMORY = 2**70
"""Bytes (1 ZiB) above which an allocation is refused without asking the machine (and without a float64 size)."""

#: Parameters sections shared by several docstrings of this module (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "real_group": """G : FiniteGroup or str
    A group with real characters.""",
    "totally_real": """G : FiniteGroup or str
    A totally real group.""",
}
_DOC["parameters_real_group"] = "Parameters\n----------\n" + _DOC["real_group"]
_DOC["parameters_totally_real"] = "Parameters\n----------\n" + _DOC["totally_real"]


def _check_network_memory(width: int, G: fg.FiniteGroup) -> None:
    check_allocation(
        array_bytes(width, 3, G.order),
        param="width",
        value=width,
        what=f"a network of {format_count(width)} neurons with 3 |G| = {3 * G.order} float64 weights each",
        hint="use fewer neurons",
    )


@dataclass(frozen=True, eq=False)
class GroupTask:
    """All |G|^2 points ((a, b), ab) of group composition; index inputs of shape (n, 2).

    Parameters
    ----------
    group : FiniteGroup or str
        The group (a name is parsed by ``theory.finite_groups.group``).

    Examples
    --------
    Point ``a |G| + b`` is the pair ``(a, b)`` with label ``ab``:

    >>> from numerics.groups import GroupTask
    >>> task = GroupTask("Z2^2")
    >>> task.n_points, task.n_classes
    (16, 4)
    >>> inputs, labels = task.batch(4, 8)
    >>> inputs.tolist(), labels.tolist()
    ([[1, 0], [1, 1], [1, 2], [1, 3]], [1, 0, 3, 2])
    """

    group: fg.FiniteGroup

    def __post_init__(self) -> None:
        object.__setattr__(self, "group", _group(self.group))
        object.__setattr__(self, "_table", np.asarray(self.group.table, dtype=np.int64))

    @property
    def table(self) -> np.ndarray:
        """Cayley table as an int array (|G|, |G|)."""
        return self._table  # type: ignore[attr-defined]

    @property
    def n_points(self) -> int:
        return self.group.order**2

    @property
    def n_classes(self) -> int:
        return self.group.order

    @property
    def n_blocks(self) -> int:
        return 2

    @property
    def block_size(self) -> int:
        return self.group.order

    def batch(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Index inputs (n, 2) = (a, b) and labels ab of points ``start..stop-1`` (``0 <= start``,
        ``stop <= |G|^2``)."""
        start = check_positive_int(start, "start", minimum=0)
        stop = check_positive_int(stop, "stop", minimum=0)
        if stop > self.n_points:
            raise InputError(f"need stop <= |G|^2 = {self.n_points}, got start = {start}, stop = {stop}", param="stop")
        idx = np.arange(start, stop, dtype=np.int64)
        N = self.group.order
        a, b = idx // N, idx % N
        return np.stack([a, b], axis=1), self.table[a, b]


# --------------------------------------------------------------------------------------------
# Real irreps
# --------------------------------------------------------------------------------------------


@fill_doc(_DOC)
def character_matrix(G: fg.FiniteGroup | str) -> np.ndarray:
    r"""Float characters per element, shape (K, |G|): ``X[r, g]`` = :math:`\chi_r(g)` (real part).

    {{parameters_real_group}}

    Returns
    -------
    numpy.ndarray
        Shape (K, |G|), irreps in the order of ``theory.finite_groups.character_table``.

    Raises
    ------
    ValueError
        Some character takes a non-real value.

    Examples
    --------
    >>> from numerics.groups import character_matrix
    >>> character_matrix("S3")
    array([[ 1.,  1.,  1.,  1.,  1.,  1.],
           [ 1., -1., -1.,  1.,  1., -1.],
           [ 2.,  0.,  0., -1., -1.,  0.]])
    >>> character_matrix("Z3")
    Traceback (most recent call last):
    ...
    ValueError: Z3 has non-real characters; the real-irrep machinery needs a totally real group
    """
    G = _group(G)
    ct = fg.character_table(G)
    vals = np.array([[complex(sympy.N(v, 20)) for v in row] for row in ct.values])
    if np.abs(vals.imag).max() > 1e-12:
        raise ValueError(f"{G.name} has non-real characters; the real-irrep machinery needs a totally real group")
    return vals.real[:, np.asarray(G.class_of)]


def irrep_method(G: fg.FiniteGroup | str, r: int) -> str:
    """How :func:`real_irreps` builds irrep r: ``"young"``, ``"closed"``, ``"kron"`` or ``"commutant"``.

    Parameters
    ----------
    G : FiniteGroup or str
    r : int
        Irrep index in ``character_table(G)``.

    Returns
    -------
    str

    Examples
    --------
    >>> from numerics.groups import irrep_method
    >>> [irrep_method(G, r) for G, r in [("S3", 0), ("S3", 2), ("D4", 4), ("S3xZ2", 4)]]
    ['closed', 'young', 'closed', 'kron']
    """
    G = _group(G)
    ct = fg.character_table(G)
    r = check_positive_int(r, "r", minimum=0)
    if r >= ct.n_irreps:
        raise InputError(f"r must be an irrep index in 0..{ct.n_irreps - 1}, got r = {r}", param="r")
    if ct.dims[r] == 1:
        return "closed"
    return {"symmetric": "young", "dihedral": "closed", "product": "kron"}.get(G.kind, "commutant")


def _young(G: fg.FiniteGroup, name: str) -> np.ndarray:
    shape = tuple(int(x) for x in name.strip("()").split(","))
    gens = [np.array(M.evalf(30).tolist(), dtype=np.float64) for M in fg.young_orthogonal_generators(shape)]
    d = gens[0].shape[0]
    R = np.full((G.order, d, d), np.nan)
    R[0] = np.eye(d)
    for g, i, h in fg.cayley_tree(G, fg.adjacent_transpositions(G)):
        R[h] = R[g] @ gens[i]
    return R


def _left_regular_index(G: fg.FiniteGroup) -> np.ndarray:
    """``Linv[g, y]`` = index of :math:`g^{-1}y`, so :math:`(L(g)Q)[y] = Q[g^{-1}y]`."""
    T = np.asarray(G.table)
    return T[np.asarray(G.inverse)]


def _commutant(G: fg.FiniteGroup, r: int, chi: np.ndarray, d: int, seed: int = 0) -> np.ndarray:
    N = G.order
    T = np.asarray(G.table)
    inv = np.asarray(G.inverse)
    P = (d / N) * chi[T[:, inv]]  # P[x, y] = d/N chi(x y^-1)
    evals, evecs = np.linalg.eigh(P)
    V = evecs[:, evals > 0.5]
    if V.shape[1] != d * d:
        raise AssertionError(f"isotypic subspace of dimension {V.shape[1]}, expected {d * d}")
    rng = np.random.default_rng(seed)
    B = np.zeros((N, N))
    for g, rg in enumerate(rng.standard_normal(N)):
        Rt = np.zeros((N, N))
        Rt[T[:, inv[g]], np.arange(N)] = 1.0  # Rt(g) e_x = e_{x g^-1}
        B += rg * (Rt + Rt.T)
    w, E = np.linalg.eigh(V.T @ B @ V)
    if d < len(w) and abs(w[d] - w[d - 1]) < 1e-8 * max(1.0, abs(w).max()):
        raise AssertionError("commutant eigenvalue clusters are not separated; try another seed")
    Q = V @ E[:, :d]
    Linv = _left_regular_index(G)
    return np.einsum("xi,gxj->gij", Q, Q[Linv])


def _closed(G: fg.FiniteGroup, r: int) -> np.ndarray:
    return np.array(
        [np.array(fg.closed_form_irrep(G, r, g).evalf(30).tolist(), dtype=np.float64) for g in range(G.order)]
    )


@functools.cache
def _real_irreps_cached(G: fg.FiniteGroup) -> tuple[np.ndarray, ...]:
    ct = fg.check_totally_real(G, source="real orthogonal irreps")
    X = character_matrix(G)
    out = []
    for r in range(ct.n_irreps):
        method = irrep_method(G, r)
        d = ct.dims[r]
        if method == "closed" and d == 1:
            R = X[r][:, None, None].copy()
        elif method == "closed":
            R = _closed(G, r)
        elif method == "young":
            R = _young(G, ct.names[r])
        elif method == "kron":
            A, B = G.factors
            ia, ib = fg.product_irrep_factors(G, r)
            Ra, Rb = _real_irreps_cached(A)[ia], _real_irreps_cached(B)[ib]
            nb = B.order
            R = np.array([np.kron(Ra[g // nb], Rb[g % nb]) for g in range(G.order)])
        else:
            R = _commutant(G, r, X[r], d)
        out.append(R)
    return tuple(out)


@fill_doc(_DOC)
def real_irreps(G: fg.FiniteGroup | str) -> tuple[np.ndarray, ...]:
    """Real orthogonal irreps in the order of ``theory.finite_groups.character_table``; entry r has shape
    (|G|, d_r, d_r) with ``R[g] @ R[h] == R[gh]`` (float64, cached; see the module doc for the methods).

    {{parameters_totally_real}}

    Returns
    -------
    tuple of numpy.ndarray
        One array (|G|, d_r, d_r) per irrep.

    Raises
    ------
    ValueError
        If some irrep of G is not real (Z_p with p > 2, A_4, Q_8).

    Examples
    --------
    The 2-dimensional irrep of S_3 (Young's form) is an orthogonal homomorphism:

    >>> import numpy as np
    >>> from theory.finite_groups import group
    >>> from numerics.groups import real_irreps
    >>> G = group("S3")
    >>> R = real_irreps(G)[2]
    >>> R.shape
    (6, 2, 2)
    >>> all(np.allclose(R[g] @ R[h], R[G.mul(g, h)]) for g in range(6) for h in range(6))
    True
    >>> all(np.allclose(R[g] @ R[g].T, np.eye(2)) for g in range(6))
    True
    """
    return _real_irreps_cached(_group(G))


# --------------------------------------------------------------------------------------------
# Isotypic power of neurons (the metric of Edelman Fig. 7.6, defined in docs/groups.md)
# --------------------------------------------------------------------------------------------


@fill_doc(_DOC)
def isotypic_projectors(G: fg.FiniteGroup | str) -> np.ndarray:
    r"""Float projectors :math:`P_R[x,y] = (d_R/|G|)\chi_R(xy^{-1})`, shape (K, |G|, |G|).

    {{parameters_real_group}}

    Returns
    -------
    numpy.ndarray
        Shape (K, |G|, |G|).

    Examples
    --------
    Orthogonal projectors that add up to the identity:

    >>> import numpy as np
    >>> from numerics.groups import isotypic_projectors
    >>> P = isotypic_projectors("S3")
    >>> P.shape, np.allclose(P.sum(axis=0), np.eye(6)), np.allclose(P[2] @ P[2], P[2])
    ((3, 6, 6), True, True)
    """
    G = _group(G)
    ct = fg.character_table(G)
    check_allocation(
        array_bytes(ct.n_irreps, G.order, G.order),
        param="G",
        value=G.name,
        what=f"the {ct.n_irreps} projectors of size |G|^2 = {G.order**2}",
    )
    X = character_matrix(G)
    T = np.asarray(G.table)
    idx = T[:, np.asarray(G.inverse)]
    return np.stack([(ct.dims[r] / G.order) * X[r][idx] for r in range(ct.n_irreps)])


@fill_doc(_DOC)
def irrep_power(vectors: np.ndarray, G: fg.FiniteGroup | str) -> np.ndarray:
    r""":math:`\|P_R v\|^2` for every irrep R, shape ``vectors.shape[:-1] + (K,)``; sums to :math:`\|v\|^2`.

    Parameters
    ----------
    vectors : array (..., |G|)
        Functions on G, one value per element.
    {{real_group}}

    Returns
    -------
    numpy.ndarray
        Shape ``vectors.shape[:-1] + (K,)``.

    Raises
    ------
    ValueError
        If ``vectors`` is not a finite real array whose last axis has length |G| (one entry per group element).

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.groups import irrep_power
    >>> v = np.arange(6.0)
    >>> p = irrep_power(v, "S3")
    >>> p.round(4).tolist(), bool(np.isclose(p.sum(), v @ v))
    ([37.5, 0.1667, 17.3333], True)
    """
    G = _group(G)
    try:
        v = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"vectors must be a real array of shape (..., |G|), got {exc}", param="vectors") from None
    if v.ndim < 1 or v.shape[-1] != G.order:
        raise InputError(
            f"vectors must have shape (..., |G|) with last axis |G| = {G.order} for {G.name}, got shape {v.shape}",
            param="vectors",
        )
    if not np.all(np.isfinite(v)):
        raise InputError("vectors must be finite (no NaN or inf entries)", param="vectors")
    P = isotypic_projectors(G)
    return np.einsum("...x,rxy,...y->...r", v, P, v)


@dataclass(frozen=True)
class IrrepDiagnostics:
    """Isotypic power of every neuron of a group network (``docs/groups.md``).

    Attributes
    ----------
    power : array (m, 3, K)
        :math:`\\|P_R x\\|^2` for x = u, v, w of each neuron.
    purity : array (m, 3)
        Max normalized power per block.
    dominant : array (m, 3)
        Argmax irrep per block.
    neuron_purity, neuron_dominant : arrays (m,)
        The same for the power summed over the three blocks.
    norms : array (m,)
        Neuron norms (for selecting non-negligible neurons).

    Examples
    --------
    Every neuron of the construction lives in one irrep:

    >>> import numpy as np
    >>> from numerics.groups import construction_network, neuron_irrep_diagnostics
    >>> d = neuron_irrep_diagnostics(construction_network("S3"), "S3")
    >>> d.power.shape, bool(np.allclose(d.neuron_purity, 1))
    ((18, 3, 3), True)
    >>> d.neuron_dominant.tolist()
    [1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]
    """

    power: np.ndarray
    purity: np.ndarray
    dominant: np.ndarray
    neuron_purity: np.ndarray
    neuron_dominant: np.ndarray
    norms: np.ndarray


@fill_doc(_DOC)
def neuron_irrep_diagnostics(net: HomogeneousNetwork, G: fg.FiniteGroup | str) -> IrrepDiagnostics:
    """Per-neuron isotypic power of u, v, w and the dominant irrep (indices of ``character_table``).

    Parameters
    ----------
    net : HomogeneousNetwork
        U of shape (m, 2, |G|) and W of shape (m, |G|).
    {{real_group}}

    Returns
    -------
    IrrepDiagnostics

    Raises
    ------
    ValueError
        The network's shapes do not fit G.

    Examples
    --------
    The optimal neuron of irrep 2 of S_3 has all its power there:

    >>> from numerics.groups import neuron_irrep_diagnostics, optimal_neuron_network
    >>> d = neuron_irrep_diagnostics(optimal_neuron_network("S3", 2), "S3")
    >>> d.neuron_dominant.tolist(), d.purity.round(6).tolist()
    ([2], [[1.0, 1.0, 1.0]])
    """
    net = check_network(net)
    G = _group(G)
    if net.U.shape[1:] != (2, G.order) or net.W.shape[1] != G.order:
        raise ValueError(f"network shapes U{net.U.shape}, W{net.W.shape} do not fit {G.name} (|G| = {G.order})")
    blocks = np.concatenate([net.U, net.W[:, None, :]], axis=1)
    power = irrep_power(blocks, G)
    tot = power.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        purity = np.where(tot > 0, power.max(-1) / tot, 0.0)
        summed = power.sum(1)
        npur = np.where(summed.sum(-1) > 0, summed.max(-1) / summed.sum(-1), 0.0)
    return IrrepDiagnostics(power, purity, power.argmax(-1), npur, summed.argmax(-1), net.neuron_norms())


# --------------------------------------------------------------------------------------------
# Class weights, constructions
# --------------------------------------------------------------------------------------------


@fill_doc(_DOC)
def class_weights(G: fg.FiniteGroup | str, class_tau: Sequence[float] | None = None) -> np.ndarray:
    r"""Weights :math:`Q((a,b), c') = q\,\tau_{C(y^{-1}c')}` with q uniform :math:`1/|G|^2`, y = ab and
    class-constant :math:`\tau` (Lemma D.11: label :math:`y\,c` gets :math:`\tau_{C(c)}`), shape (|G|^2, |G|).

    ``class_tau`` (one entry per class, identity first and ignored) defaults to ``theory.groups.tau``.

    {{parameters_totally_real}}
    class_tau : sequence of float, optional
        :math:`\tau_C` per class; default ``theory.groups.tau(G)``.

    Returns
    -------
    numpy.ndarray
        Shape (|G|^2, |G|); the entries add up to 1.

    Raises
    ------
    ValueError
        If some tau is negative (Thm 7.9's condition fails for the default tau) or
        :math:`\sum_{C\ne e}|C|\tau_C \ne 1`.

    Examples
    --------
    All the weight on the transpositions of S_3: the wrong labels ``y c`` with c a transposition get 1/3 each:

    >>> from numerics.groups import class_weights
    >>> Q = class_weights("S3", [0, 1 / 3, 0])
    >>> Q.shape, round(float(Q.sum()), 12)
    ((36, 6), 1.0)
    >>> (Q[0] * 36).round(4).tolist()
    [0.0, 0.3333, 0.3333, 0.0, 0.0, 0.3333]
    >>> class_weights("D4xD4")
    Traceback (most recent call last):
    ...
    ValueError: tau has negative entries for D4^2 (Edelman Thm 7.9 condition fails); use the dual of ...
    """
    order = fg._order_before_building(G)
    check_allocation(
        array_bytes(order**2, order),
        param="G",
        value=G.name if isinstance(G, fg.FiniteGroup) else G,
        what="the class weights of shape (|G|^2, |G|)",
        hint="use theory.groups.tau for the class-level weights",
    )
    G = _group(G)
    ct = fg.check_totally_real(G)
    raw = tg.tau(G) if class_tau is None else as_list(class_tau, "class_tau")
    if len(raw) != len(ct.classes):
        raise InputError(f"need one tau per class ({len(ct.classes)}), got {len(raw)}", param="class_tau")
    t = np.array([float(sympy.N(as_number(x, "class_tau", symbolic=False), 30)) for x in raw], dtype=np.float64)
    t[0] = 0.0
    if (t < -1e-15).any():
        raise ValueError(
            f"tau has negative entries for {G.name} (Edelman Thm 7.9 condition fails); "
            "use the dual of numerics.groups.character_lp"
        )
    if abs(float(np.dot(ct.class_sizes, t)) - 1.0) > 1e-9:
        raise ValueError(f"class weights must satisfy sum |C| tau_C = 1, got {float(np.dot(ct.class_sizes, t))}")
    N = G.order
    T = np.asarray(G.table)
    inv = np.asarray(G.inverse)
    cls = np.asarray(G.class_of)
    y = T.reshape(-1)  # label of point a N + b
    g = T[inv[y]]  # (N^2, N): y^-1 c'
    return np.clip(t, 0.0, None)[cls[g]] / N**2


@fill_doc(_DOC)
def construction_network(
    G: fg.FiniteGroup | str, width: int | None = None, budgets: Sequence[object] | None = None
) -> HomogeneousNetwork:
    r"""The construction of ``theory.groups.construction`` (Lemmas D.15-D.16, corrected constants) as float64
    weights, zero-padded to ``width``: for each used irrep R and (i,j,k), neurons
    :math:`(c R_{ij}, \pm c R_{jk}, \pm c R_{ik})`; logits :math:`\sum_R 4c_R^3\chi_R(abc^{-1})`.

    {{parameters_totally_real}}
    width, budgets :
        As in ``theory.groups.construction``.

    Returns
    -------
    HomogeneousNetwork
        Degree 2, U of shape (width, 2, |G|).

    Examples
    --------
    Its normalized margin is Thm 7.9's :math:`\gamma^*(S_3) = (8 - \sqrt2)/279`:

    >>> from numerics.groups import GroupTask, construction_network
    >>> from numerics.margins import normalized_margin
    >>> net = construction_network("S3")
    >>> net.width, round(normalized_margin(net, GroupTask("S3")), 10)
    (18, 0.0236049693)
    >>> round((8 - 2**0.5) / 279, 10)
    0.0236049693
    """
    G = _group(G)
    con = tg.construction(G, width, budgets)
    _check_network_memory(con.width, G)
    irreps = real_irreps(G)
    N = G.order
    U = np.zeros((con.width, 2, N))
    W = np.zeros((con.width, N))
    i0 = 0
    for r in range(1, len(irreps)):
        if con.budgets[r].is_zero:
            continue
        c = float(sympy.N(con.coefficients[r], 30))
        R = irreps[r]
        d = R.shape[1]
        for i in range(d):
            for j in range(d):
                for k in range(d):
                    for sgn in (1.0, -1.0):
                        U[i0, 0] = c * R[:, i, j]
                        U[i0, 1] = sgn * c * R[:, j, k]
                        W[i0] = sgn * c * R[:, i, k]
                        i0 += 1
    return HomogeneousNetwork(U, W, degree=2)


@fill_doc(_DOC)
def optimal_neuron_network(
    G: fg.FiniteGroup | str,
    r: int,
    x: np.ndarray | None = None,
    y: np.ndarray | None = None,
    z: np.ndarray | None = None,
) -> HomogeneousNetwork:
    r"""The rank-1 unit optimal neuron (equality case of Lemma D.13, ``docs/groups.md``) in irrep r: :math:`u = t\,x^\top R(\cdot)y`,
    :math:`v = t\,y^\top R(\cdot)z`, :math:`w = t\,x^\top R(\cdot)z`, :math:`t=\sqrt{d_R/(3|G|)}`
    (x, y, z default to :math:`e_1` and are normalized).

    {{parameters_totally_real}}
    r : int
        A nontrivial irrep index.
    x, y, z : array (d_R,), optional
        Non-zero vectors (normalized here).

    Returns
    -------
    HomogeneousNetwork
        One neuron of norm 1.

    Raises
    ------
    ValueError
        A vector of the wrong length, or zero.

    Examples
    --------
    Its class-weighted margin (weights :func:`class_weights`) is the single-neuron maximum, here
    :math:`\gamma^*(S_3)`:

    >>> from numerics.groups import GroupTask, class_weights, optimal_neuron_network
    >>> from numerics.margins import evaluate
    >>> net = optimal_neuron_network("S3", 2)
    >>> net.neuron_norms().tolist()
    [1.0]
    >>> round(evaluate(net, GroupTask("S3"), Q=class_weights("S3")).class_weighted, 10)
    0.0236049693
    """
    G = _group(G)
    t = float(sympy.N(tg.optimal_neuron_scale(G, r), 30))
    R = real_irreps(G)[r]
    d = R.shape[1]

    def unit(v: np.ndarray | None, name: str) -> np.ndarray:
        if v is None:
            return np.eye(d)[0]
        try:
            v = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"{name} must be a real vector of length d_R = {d}, got {v!r:.80}", param=name) from None
        norm = float(np.linalg.norm(v)) if v.shape == (d,) and np.isfinite(v).all() else math.nan
        if not (math.isfinite(norm) and norm > 0):
            raise InputError(
                f"x, y, z must be finite non-zero vectors of length d_R = {d}, got {name} = {v!r:.80}", param=name
            )
        return v / norm

    x, y, z = unit(x, "x"), unit(y, "y"), unit(z, "z")
    u = t * np.einsum("i,gij,j->g", x, R, y)
    v = t * np.einsum("i,gij,j->g", y, R, z)
    w = t * np.einsum("i,gij,j->g", x, R, z)
    return HomogeneousNetwork(np.stack([u, v])[None], w[None], degree=2)


def random_network(
    G: fg.FiniteGroup | str, width: int, rng: np.random.Generator, scale: float | None = None
) -> HomogeneousNetwork:
    """Gaussian network with i.i.d. N(0, scale^2) entries (default scale 1/sqrt(|G|)).

    Parameters
    ----------
    G : FiniteGroup or str
    width : int
        Number of neurons (>= 0).
    rng : numpy.random.Generator
    scale : float, optional
        Standard deviation of the entries.

    Returns
    -------
    HomogeneousNetwork
        Degree 2, U of shape (width, 2, |G|), W of shape (width, |G|).

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.groups import random_network
    >>> net = random_network("S3", 4, np.random.default_rng(0))
    >>> net.U.shape, net.W.shape, net.degree
    ((4, 2, 6), (4, 6), 2)
    >>> random_network("S3", 4, rng=0)
    Traceback (most recent call last):
    ...
    theory._checks.InputError: rng must be a numpy Generator (np.random.default_rng(seed)), got 0
    """
    G = _group(G)
    N = G.order
    width = check_positive_int(width, "width", minimum=0, hypothesis="number of neurons")
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r:.80}", param="rng")
    s = 1.0 / math.sqrt(N) if scale is None else check_real(scale, "scale", positive=True)
    _check_network_memory(width, G)
    return HomogeneousNetwork(rng.normal(0, s, (width, 2, N)), rng.normal(0, s, (width, N)), degree=2)


# --------------------------------------------------------------------------------------------
# Character-level LP / matrix game (Edelman App. D.9.2)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CharacterLPResult:
    r"""Solution of the character-level game of Edelman App. D.9.2 (``docs/groups.md``).

    Attributes
    ----------
    value : float
        :math:`\gamma^*(G) = 2(3|G|)^{-3/2}\max_s\min_C (s^\top A)_C` (primal).
    dual_value : float
        :math:`2(3|G|)^{-3/2}\max_R (A p)_R` for the returned class distribution p (weak-duality bound).
    budgets : np.ndarray (K,)
        Optimal :math:`s_R` (entry 0, trivial, is 0); usable as ``budgets`` of the construction.
    class_tau : np.ndarray (n_classes,)
        Dual certificate :math:`\tau_C = p_C/|C|` (entry 0 is 0); usable as ``class_tau`` of
        :func:`class_weights`.
    used_irreps, margin_classes : tuple of int
        Irreps with :math:`s_R > 10^{-9}` and classes with :math:`p_C > 10^{-9}`.
    irrep_payoff : np.ndarray (K,)
        :math:`2(3|G|)^{-3/2}(A p)_R` against the returned class distribution (entry 0, trivial, is 0): its maximum
        is ``dual_value``; an irrep any optimal s uses attains it (complementary slackness).

    Examples
    --------
    >>> from numerics.groups import character_lp
    >>> res = character_lp("S3")
    >>> res.used_irreps, res.margin_classes, res.budgets.round(4).tolist()
    ((1, 2), (1, 2), [0.0, 0.1502, 0.8498])
    >>> abs(res.gap) < 1e-12
    True
    """

    value: float
    dual_value: float
    budgets: np.ndarray
    class_tau: np.ndarray
    used_irreps: tuple[int, ...]
    margin_classes: tuple[int, ...]
    irrep_payoff: np.ndarray

    @property
    def gap(self) -> float:
        return self.dual_value - self.value


@fill_doc(_DOC)
def character_lp(G: fg.FiniteGroup | str) -> CharacterLPResult:
    r"""Exact max margin of a totally real group via the character-level LP (App. D.9.2, HiGHS):

    .. math:: \max_{s\in\Delta,\,t} t\quad\text{s.t.}\quad \sum_{R\ne1}s_R d_R^{-1/2}(1-\chi_R(C)/d_R)\ge t
              \ \ \forall C\ne\{e\},

    and :math:`\gamma^* = 2(3|G|)^{-3/2}t`. Valid with or without Thm 7.9's condition; equals the
    closed form when it holds.

    {{parameters_totally_real}}

    Returns
    -------
    CharacterLPResult

    Raises
    ------
    ValueError
        If some irrep of G is not real.
    RuntimeError
        If HiGHS fails.

    Examples
    --------
    Where Thm 7.9's condition holds it gives the closed form; D_4 x D_4 fails the condition, and the LP's value
    there is :math:`\sqrt6/4608` to float precision:

    >>> from theory.groups import max_margin
    >>> from numerics.groups import character_lp
    >>> round(character_lp("S3").value, 10), round(float(max_margin("S3")), 10)
    (0.0236049693, 0.0236049693)
    >>> res = character_lp("D4xD4")
    >>> round(res.value * 4608 / 6**0.5, 9), abs(res.gap) < 1e-12
    (1.0, True)
    """
    G = _group(G)
    ct = fg.check_totally_real(G, source="the character LP of Edelman App. D.9.2")
    A = np.array([[float(sympy.N(x, 30)) for x in row] for row in tg.character_game_matrix(G)])  # (K-1, nC-1)
    nR, nC = A.shape
    c = np.zeros(nR + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-A.T, np.ones((nC, 1))])  # t - s^T A[:, C] <= 0
    A_eq = np.hstack([np.ones((1, nR)), np.zeros((1, 1))])
    res = linprog(
        c, A_ub=A_ub, b_ub=np.zeros(nC), A_eq=A_eq, b_eq=[1.0], bounds=[(0, None)] * nR + [(None, None)], method="highs"
    )
    if res.status != 0:
        raise RuntimeError(f"character LP for {G.name} failed: {res.message}")
    scale = 2.0 / (3.0 * G.order) ** 1.5
    s = res.x[:nR].copy()
    s[s < 1e-12] = 0.0  # solver noise on unused irreps
    s /= s.sum()
    p = -np.asarray(res.ineqlin.marginals)
    p[p < 1e-12] = 0.0
    p /= p.sum()
    sizes = np.asarray(ct.class_sizes[1:], dtype=np.float64)
    payoff = scale * (A @ p)
    return CharacterLPResult(
        value=scale * float((s @ A).min()),
        dual_value=float(payoff.max()),
        budgets=np.concatenate([[0.0], s]),
        class_tau=np.concatenate([[0.0], p / sizes]),
        used_irreps=tuple(int(i) + 1 for i in np.flatnonzero(s > 1e-9)),
        margin_classes=tuple(int(i) + 1 for i in np.flatnonzero(p > 1e-9)),
        irrep_payoff=np.concatenate([[0.0], payoff]),
    )
