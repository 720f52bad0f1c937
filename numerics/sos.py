r"""A rigorous upper bound on the single-neuron class-weighted margin by a sum-of-squares (Lasserre) SDP.

The problem (``numerics.single_neuron``; Edelman Lemmas 7.2, 7.5, Shi Lemma C.5): for class weights
:math:`Q(x,c) = q(x)\tau(x)[c]` and one neuron :math:`\theta = (u, w)` with input blocks
:math:`u = (U_1..U_k)\in\mathbb R^{kd}` and output weights :math:`w\in\mathbb R^C`,

.. math:: \Psi_Q(\theta) = \sum_x S(x)^{\mathrm{deg}}\, r(x)\cdot w = w\cdot P(u),\qquad
          P_c(u) = \sum_x S(x)^{\mathrm{deg}} r_c(x),\qquad r(x) = q(x)e_{y(x)} - Q(x,\cdot),

and every Q gives :math:`\gamma^*\le\max_{\|\theta\|\le1}\Psi_Q`. The maximum is what must be bounded.

**Step 1: eliminate w exactly.** :math:`\Psi_Q` is linear in w, so by Cauchy-Schwarz and homogeneity
(:math:`\|w\| = s`, :math:`\|u\|^2 = 1-s^2`, maximised at :math:`s^2 = 1/\nu`, :math:`\nu = \mathrm{deg}+1`)

.. math:: \max_{\|\theta\|\le1}\Psi_Q = c_{\mathrm{deg}}\sqrt{\max_{\|u\|=1}F(u)},\qquad
          F(u) = \|P(u)\|_2^2,\qquad c_{\mathrm{deg}} = \nu^{-1/2}(\mathrm{deg}/\nu)^{\mathrm{deg}/2}

(:func:`output_layer_factor`). F is a form of even degree :math:`2\,\mathrm{deg}` in the :math:`n = kd` input
weights only; nothing about the task's closed form enters.

**Step 2: SOS relaxation on the sphere.** :math:`\lambda\ge\max_{\|u\|=1}F` whenever
:math:`\lambda\|u\|^{2\mathrm{deg}} - F(u) = m(u)^\top G\,m(u)` with :math:`G\succeq0` and m the monomials of
degree deg (first level of the Lasserre hierarchy for a form on the sphere). The SDP
:math:`\min\lambda` is solved with cvxpy (Clarabel, SCS as fallback); its dual is the moment relaxation
(a pseudo-moment vector y with :math:`\langle N, y\rangle = 1` and PSD moment matrices, where N are the
coefficients of :math:`\|u\|^{2\mathrm{deg}}`), whose value :math:`\langle F, y\rangle` is reported with the duality gap.

**Step 3: block structure.** A finite abelian group acting orthogonally on u that leaves F invariant
(translations of each block for modular addition, left/right translation by an abelian subgroup for group
composition, sign flips for parity) is diagonal in a unitary basis :math:`z = V^H u` (a DFT on each orbit,
:class:`Grading`): :math:`z_i` has a character (weight) :math:`\mathrm{wt}_i`. Averaging a certificate over the
group keeps it valid, so the Gram matrix can be taken block-diagonal by the weight of the monomials (a
Hermitian block per weight class w; the class -w carries the complex conjugate block, so one of each pair is
kept; Gatermann and Parrilo 2004). This shrinks the SDP from one block of :math:`\binom{n+\mathrm{deg}-1}{\mathrm{deg}}`
to many small ones (``docs/certificates.md``, ``benchmarks/bench_sos.py``).

**Step 4: rigor.** The solver's Gram blocks :math:`H_w` are only approximately PSD and the coefficient equations
only approximately hold. With :math:`R = \lambda N - \sum_w m_w^H H_w m_w - F` (computed in float64 over every
monomial, including any of F outside weight 0) and :math:`\varepsilon = \max_w\max(0,-\lambda_{\min}(H_w))`, for
:math:`\|u\|=\|z\|=1`: :math:`\sum_\alpha|z^\alpha|^2\le\|z\|^{2\mathrm{deg}} = 1` and :math:`|z^\gamma|\le1`, hence

.. math:: F(u) \le \lambda + \varepsilon + \|R\|_1 + \text{(float64 rounding pad)}.

That is the certified bound: it holds whatever the solver's accuracy (a bad solve only makes it loose), so the
certificate is judged by this bound, the duality gap and the residuals, never by comparing dual vectors.

Limits: the number of monomials of degree 2 deg in n variables, and the size of the largest block, set the
cost (``docs/certificates.md`` has the table). Clarabel's PSD cones use dense scaling blocks of
:math:`(s(s+1)/2)^2` entries for a block of side s, so blocks above :data:`MAX_BLOCK` sides are refused, and so are
programs whose scaling entries do not fit in the memory available. Before any work: gradings of at most
:data:`MAX_VARS` = 1440 variables, monomial tables of at most :data:`MAX_MONOMIAL_ENTRIES` entries and margin
polynomials of at most :data:`MAX_PRODUCTS` products (sized in log space), the Gram entries of :func:`sdp_size` and
the products of :func:`squared_norm_form` against the memory available; the refusals are
:class:`theory._checks.LimitError` naming the parameter.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement

import numpy as np
import scipy.sparse as sp

from theory import finite_groups as fg
from theory._checks import InputError, LimitError, check_positive_int, format_count, log10_binomial
from theory._docstrings import fill_doc

from .limits import array_bytes, check_allocation
from .margins import DEFAULT_MEMORY_BUDGET, Task, check_class_weights, check_task

__all__ = [
    "MAX_BLOCK",
    "MAX_MONOMIAL_ENTRIES",
    "MAX_PRODUCTS",
    "MAX_SCALING",
    "MAX_VARS",
    "SOS_SOLVERS",
    "SOS_SOLVER_OPTIONS",
    "Form",
    "Grading",
    "SDPSize",
    "SOSError",
    "SOSResult",
    "SingleNeuronBound",
    "group_grading",
    "margin_polynomials",
    "modular_grading",
    "monomials",
    "orbit_grading",
    "output_layer_factor",
    "sdp_size",
    "sign_grading",
    "single_neuron_sdp_bound",
    "sos_sphere_bound",
    "squared_norm_form",
    "trivial_grading",
]

MAX_BLOCK = 160
"""Largest Gram block side (after realification) accepted; Clarabel needs about ``(s(s+1)/2)^2`` floats per block."""

MAX_SCALING = 2 * 10**7
"""Largest total of Clarabel's dense PSD scaling entries, sum over blocks of ``(s(s+1)/2)^2``, accepted (memory:
modular p = 9, k = 3 has 1.3e7 and peaks at 1.2 GB in 170 s; p = 11, k = 3 has 6e7 and is refused)."""

MAX_PRODUCTS = 10**9
"""Largest (points x monomials x degree) accepted by :func:`margin_polynomials` (about a minute of numpy)."""

MAX_VARS = 2 * fg.MAX_GROUP_ORDER
"""Largest number of variables of a grading (2 |G| = 1440 for S_6): V is a dense complex n x n matrix whose unitarity
is checked in O(n^3)."""

MAX_MONOMIAL_ENTRIES = 2 * 10**7
"""Largest ``C(n + d - 1, d) * (n + d)`` of :func:`monomials` (the index and exponent tables; about a second)."""

_BYTES_PER_SCALING_ENTRY = 96
"""Clarabel's memory per dense scaling entry (modular p = 9, k = 3: 1.3e7 entries peak at 1.2 GB)."""

_BEYOND_ANY_MEMORY = 2**70

SOS_SOLVERS: tuple[str, ...] = ("CLARABEL", "SCS")
"""Solvers tried in order (SCS is the fallback)."""

SOS_SOLVER_OPTIONS: dict[str, dict[str, float]] = {
    "CLARABEL": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "max_iter": 400},
    "SCS": {"eps_abs": 1e-10, "eps_rel": 1e-10, "max_iters": 200_000},
}
"""Solver tolerances (on F scaled to max |coefficient| = 1). They only affect how tight the certified bound is,
not its validity (module doc, step 4)."""

#: The Parameters and Returns of the gradings on n variables, shared by their docstrings (filled in by
#: :func:`theory._docstrings.fill_doc`, issue 27).
_DOC = {
    "grading_of_n": """Parameters
----------
n : int
    Number of variables.

Returns
-------
Grading""",
}


class SOSError(RuntimeError):
    """The SOS relaxation could not be solved (every solver failed); no bound is returned.

    Parameters
    ----------
    message : str
        The solvers tried and why each was rejected.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics.sos import Form, sos_sphere_bound
    >>> F = Form(np.array([[2, 2]]), np.array([1.0 + 0j]))
    >>> sos_sphere_bound(F, solver="CLARABEL", solver_options={"CLARABEL": {"no_such_setting": 1}})
    Traceback (most recent call last):
    ...
    numerics.sos.SOSError: SOS program (5 equalities, blocks up to 3) failed with every solver tried; ...
    """


def _check_vars(n: int, param: str = "n", value: object = None) -> int:
    """Refuse a grading of more than :data:`MAX_VARS` variables, naming ``param`` (whose value is ``value``, default
    ``n``)."""
    if n > MAX_VARS:
        shown = n if value is None else value
        raise LimitError(
            f"{param} = {format_count(shown)} is too large: the grading has {format_count(n)} variables, above the "
            f"limit {MAX_VARS} (2 |G| for S_6; its basis is a dense n x n complex matrix); use a smaller case",
            param=param,
            value=shown,
            limit=MAX_VARS,
            hint="use a smaller case",
        )
    return n


def _as_degree(degree: object, name: str = "degree") -> int:
    """A positive integer degree (an integral float such as 2.0 is accepted, as before)."""
    if isinstance(degree, (float, np.floating)) and math.isfinite(degree) and float(degree).is_integer():
        degree = int(degree)
    return check_positive_int(degree, name)


# --------------------------------------------------------------------------------------------
# Gradings: an abelian symmetry, diagonal in a unitary basis
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Grading:
    r"""A unitary change of variables :math:`z = V^H u` in which an abelian group acts diagonally.

    Attributes
    ----------
    V : complex array (n, n)
        Unitary; column i is the basis vector of :math:`z_i` in u-coordinates (:math:`u = Vz`).
    weights : int array (n, r)
        Character of :math:`z_i`: group element s multiplies :math:`z_i` by
        :math:`\exp(-2\pi i\sum_t \mathrm{wt}_{i,t}s_t/\mathrm{moduli}_t)`.
    moduli : tuple of int
        Orders of the cyclic factors of the group.
    name : str
        What the group is (for records).
    conj : int array (n,)
        :math:`\bar z_i = z_{\mathrm{conj}[i]}` (computed; the basis must be closed under conjugation).

    Examples
    --------
    The DFT of Z_3 (:func:`modular_grading` with one block): :math:`z_1` and :math:`z_2` are conjugate:

    >>> from numerics.sos import Grading, modular_grading
    >>> g = modular_grading(3, 1)
    >>> g.weights.ravel().tolist(), g.conj.tolist(), g.real, g.order
    ([0, 1, 2], [0, 2, 1], False, 3)
    >>> import numpy as np
    >>> Grading(np.ones((2, 2)), np.zeros((2, 1)), (1,), "not unitary")
    Traceback (most recent call last):
    ...
    ValueError: grading basis V must be unitary
    """

    V: np.ndarray
    weights: np.ndarray
    moduli: tuple[int, ...]
    name: str
    conj: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        try:
            V = np.asarray(self.V, dtype=np.complex128)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"grading basis V must be a complex (n, n) array, got {self.V!r:.80}", param="V") from None
        if V.ndim != 2 or V.shape[0] != V.shape[1] or V.shape[0] < 1:
            raise InputError(f"grading basis V must be a square (n, n) array, got shape {V.shape}", param="V")
        n = _check_vars(V.shape[0], "V")
        if not np.isfinite(V).all():
            raise InputError("grading basis V must be finite", param="V")
        try:
            W = np.asarray(self.weights)
            integral_floats = (
                W.dtype.kind == "f" and np.isfinite(W).all() and (np.round(W) == W).all() and (np.abs(W) < 2**62).all()
            )
            if W.dtype.kind not in "iub" and not integral_floats:
                raise TypeError
            W = W.astype(np.int64).reshape(n, -1)
            mod = tuple(check_positive_int(m, "moduli") for m in self.moduli)
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, InputError):
                raise
            raise InputError(
                f"grading needs integer weights (n, r) and r positive integer moduli; got weights {self.weights!r:.60}, "
                f"moduli {self.moduli!r:.60}",
                param="weights",
            ) from None
        if any(m > 2**62 for m in mod):
            raise InputError(f"grading moduli must be at most 2^62, got {mod}", param="moduli")
        if V.shape != (n, n) or W.shape != (n, len(mod)) or any(m < 1 for m in mod):
            raise ValueError(
                f"grading needs V (n, n), weights (n, r) and r positive moduli; got {V.shape}, {W.shape}, {mod}"
            )
        if not np.allclose(V.conj().T @ V, np.eye(n), atol=1e-10):
            raise ValueError("grading basis V must be unitary")
        overlap = np.abs(V.conj().T @ V.conj())  # |<v_i, conj(v_j)>|: a permutation matrix
        conj = overlap.argmax(axis=0)
        if not (np.allclose(overlap[conj, np.arange(n)], 1, atol=1e-9) and np.array_equal(conj[conj], np.arange(n))):
            raise ValueError("grading basis must be closed under complex conjugation (conj(v_i) = v_j for some j)")
        if not np.allclose(V.conj()[:, np.arange(n)], V[:, conj], atol=1e-9):
            raise ValueError("grading basis: conj(v_i) must equal v_conj(i) exactly (no phase)")
        if np.any((W[conj] + W) % np.array(mod) != 0):
            raise ValueError("grading weights: the conjugate of z_i must carry the opposite weight")
        object.__setattr__(self, "V", V)
        object.__setattr__(self, "weights", W % np.array(mod))
        object.__setattr__(self, "moduli", mod)
        object.__setattr__(self, "conj", conj)

    @property
    def n(self) -> int:
        return self.V.shape[0]

    @property
    def real(self) -> bool:
        """True if every basis vector is real (then the Gram blocks are real symmetric)."""
        return bool(np.array_equal(self.conj, np.arange(self.n)) and np.allclose(self.V.imag, 0))

    @property
    def order(self) -> int:
        """Order of the group (the product of the moduli, an exact integer)."""
        return math.prod(self.moduli)


@fill_doc(_DOC)
def trivial_grading(n: int) -> Grading:
    """No symmetry: u itself, every weight 0 (one Gram block; the unstructured relaxation).

    {{grading_of_n}}

    Examples
    --------
    >>> from numerics.sos import trivial_grading
    >>> g = trivial_grading(3)
    >>> g.name, g.real, g.weights.ravel().tolist(), g.moduli
    ('none', True, [0, 0, 0], (1,))
    """
    n = _check_vars(check_positive_int(n, "n"))
    return Grading(np.eye(n), np.zeros((n, 1), dtype=np.int64), (1,), "none")


@fill_doc(_DOC)
def sign_grading(n: int) -> Grading:
    r"""Independent sign flips :math:`u_i\to-u_i` (the group :math:`\mathbb Z_2^n`, diagonal in u itself).

    {{grading_of_n}}

    Examples
    --------
    >>> from numerics.sos import sign_grading
    >>> g = sign_grading(3)
    >>> g.name, g.order, g.weights.tolist()
    ('Z2^3 sign flips', 8, [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    """
    n = _check_vars(check_positive_int(n, "n"))
    return Grading(np.eye(n), np.eye(n, dtype=np.int64), (2,) * n, f"Z2^{n} sign flips")


def orbit_grading(n: int, orbits: Sequence[tuple[np.ndarray, int]], moduli: Sequence[int], name: str) -> Grading:
    r"""The Fourier basis of an abelian group acting by translation on orbits of coordinates.

    Parameters
    ----------
    n : int
        Number of coordinates; the orbits must partition ``range(n)``.
    orbits : sequence of (coords, offset)
        ``coords`` has shape :math:`(n_1,..,n_r)`: ``coords[t]`` is the coordinate of :math:`t\cdot x_0`, and
        group element s (acting on the factors ``offset..offset+r-1``) maps the value at :math:`t\cdot x_0` to
        :math:`(t+s)\cdot x_0`. The factor sizes must equal ``moduli[offset:offset+r]``.
    moduli : sequence of int
        Orders of all cyclic factors.

    Returns
    -------
    Grading
        Basis vectors :math:`v_j = |A|^{-1/2}\sum_t e^{2\pi i\,j\cdot t/n}e_{\mathrm{coords}[t]}` with weight j.

    Examples
    --------
    One orbit of Z_3 on three coordinates: V is the unitary DFT matrix:

    >>> import numpy as np
    >>> from numerics.sos import orbit_grading
    >>> g = orbit_grading(3, [(np.arange(3), 0)], (3,), "Z3")
    >>> jt = np.outer(np.arange(3), np.arange(3))
    >>> bool(np.allclose(g.V, np.exp(2j * np.pi * jt / 3) / np.sqrt(3))), g.weights.ravel().tolist()
    (True, [0, 1, 2])
    >>> orbit_grading(3, [(np.arange(2), 0)], (2,), "Z2 on two of three")
    Traceback (most recent call last):
    ...
    ValueError: orbits must cover every coordinate
    """
    n = _check_vars(check_positive_int(n, "n"))
    if isinstance(moduli, (str, bytes)) or not hasattr(moduli, "__iter__"):
        raise InputError(f"moduli must be a sequence of positive integers, got {moduli!r:.80}", param="moduli")
    mod = tuple(check_positive_int(m, "moduli") for m in moduli)
    if any(m > 2**62 for m in mod):
        raise InputError(f"moduli must be at most 2^62, got {mod}", param="moduli")
    if isinstance(orbits, (str, bytes)) or not hasattr(orbits, "__iter__"):
        raise InputError(f"orbits must be a sequence of (coords, offset) pairs, got {orbits!r:.80}", param="orbits")
    V = np.zeros((n, n), dtype=np.complex128)
    W = np.zeros((n, len(mod)), dtype=np.int64)
    seen = np.zeros(n, dtype=bool)
    col = 0
    for item in orbits:
        try:
            orbit, offset = item
            coords = np.asarray(orbit, dtype=np.int64)
            offset = check_positive_int(offset, "orbits", minimum=0)
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, InputError):
                raise
            raise InputError(
                f"orbits must hold (coords, offset) pairs of integers, got {item!r:.80}", param="orbits"
            ) from None
        if coords.size and (coords.min() < 0 or coords.max() >= n):
            raise InputError(
                f"orbit coordinates must lie in 0..n-1 = {n - 1}, got {coords.ravel()[:8].tolist()}", param="orbits"
            )
        shape = coords.shape
        if tuple(mod[offset : offset + len(shape)]) != shape:
            raise ValueError(f"orbit of shape {shape} does not match moduli {mod[offset : offset + len(shape)]}")
        flat = coords.ravel()
        if seen[flat].any() or len(set(flat.tolist())) != flat.size:
            raise ValueError("orbits must be disjoint")
        seen[flat] = True
        ts = np.stack(np.unravel_index(np.arange(flat.size), shape), axis=1)  # (|A|, r)
        for j in ts:
            phase = np.exp(2j * np.pi * (ts * (j / np.array(shape))[None, :]).sum(axis=1))
            V[flat, col] = phase / math.sqrt(flat.size)
            W[col, offset : offset + len(shape)] = j
            col += 1
    if not seen.all():
        raise ValueError("orbits must cover every coordinate")
    # exact conjugate pairs: conj(v_j) = v_{-j}; clean rounding so the pairing check is exact
    return Grading(V, W, mod, name)


def modular_grading(p: int, k: int) -> Grading:
    r"""Translations of each input block of k-input modular addition: :math:`\mathbb Z_p^k`, the DFT of every block.

    Translating block l by s (:math:`U_l(a)\to U_l(a-s)`) shifts every label by s, a permutation of the classes,
    so :math:`F = \|P\|^2` is invariant for the uniform weighting (and any weighting that depends on the
    label difference only).

    Parameters
    ----------
    p : int
        Modulus.
    k : int
        Number of input blocks.

    Returns
    -------
    Grading
        ``k p`` variables, moduli ``(p,) * k``.

    Examples
    --------
    >>> from numerics.sos import modular_grading
    >>> g = modular_grading(3, 2)
    >>> g.n, g.moduli, g.name
    (6, (3, 3), 'Z3^2 block translations')
    """
    p = check_positive_int(p, "p")
    k = check_positive_int(k, "k")
    _check_vars(k * p, "p" if p > MAX_VARS else "k", p if p > MAX_VARS else k)
    orbits = [(np.arange(p) + l * p, l) for l in range(k)]
    return orbit_grading(k * p, orbits, (p,) * k, f"Z{p}^{k} block translations")


def _abelian_subgroup(G: fg.FiniteGroup) -> tuple[list[int], list[int]]:
    """Generators and their orders of an abelian subgroup, built greedily as a direct product of cyclic groups
    (element of largest order first, then commuting elements independent of the subgroup so far)."""
    T = np.asarray(G.table, dtype=np.int64)
    N = G.order
    e = int(next(i for i in range(N) if np.array_equal(T[i], np.arange(N))))

    def order(g: int) -> int:
        x, n = g, 1
        while x != e:
            x, n = int(T[x, g]), n + 1
        return n

    orders = [order(g) for g in range(N)]
    gens: list[int] = []
    ords: list[int] = []
    sub = {e}
    for g in sorted(range(N), key=lambda g: (-orders[g], g)):
        if g in sub or any(T[g, h] != T[h, g] for h in gens):
            continue
        cyc = [e]
        while len(cyc) < orders[g]:
            cyc.append(int(T[cyc[-1], g]))
        new = {int(T[a, c]) for a in sub for c in cyc}
        if len(new) == len(sub) * orders[g]:  # direct: <g> meets the subgroup in e only
            gens.append(g)
            ords.append(orders[g])
            sub = new
    return gens, ords


def group_grading(G: fg.FiniteGroup | str) -> Grading:
    r"""Left translation of u and right translation of v by an abelian subgroup A of G (group composition,
    two blocks of size |G|).

    For :math:`g, h\in A`, :math:`u(a)\to u(g^{-1}a)`, :math:`v(b)\to v(bh^{-1})` relabels :math:`c\to gch`; with
    class weights :math:`\tau_{C(y^{-1}c')}` (Lemma D.11) this permutes the classes, so F is invariant. A is a
    direct product of cyclic groups found greedily (rotations for :math:`D_n`, all of :math:`\mathbb Z_2^3`).

    Parameters
    ----------
    G : FiniteGroup or str

    Returns
    -------
    Grading
        ``2 |G|`` variables.

    Examples
    --------
    >>> from numerics.sos import group_grading
    >>> g = group_grading("S3")
    >>> g.n, g.moduli, g.name
    (12, (3, 3), 'S3: left x right translations by Z3')
    >>> group_grading("Z2^2").name
    'Z2^2: left x right translations by Z2xZ2'
    """
    G = fg.as_group(G)
    T = np.asarray(G.table, dtype=np.int64)
    N = G.order
    gens, ords = _abelian_subgroup(G)
    e = int(next(i for i in range(N) if np.array_equal(T[i], np.arange(N))))

    def element(t: tuple[int, ...]) -> int:
        x = e
        for g, n in zip(gens, t):
            for _ in range(n):
                x = int(T[x, g])
        return x

    shape = tuple(ords)
    ts = [tuple(int(v) for v in t) for t in np.ndindex(*shape)]
    elems = np.array([element(t) for t in ts]).reshape(shape)
    r = len(shape)
    orbits: list[tuple[np.ndarray, int]] = []
    for block, side in ((0, "left"), (1, "right")):
        done: set[int] = set()
        for x0 in range(N):
            if x0 in done:
                continue
            coords = T[elems, x0] if side == "left" else T[x0, elems]  # t . x0 or x0 . t
            done.update(int(c) for c in coords.ravel())
            orbits.append((coords + block * N, block * r))
    return orbit_grading(
        2 * N, orbits, shape * 2, f"{G.name}: left x right translations by {'x'.join(f'Z{o}' for o in ords)}"
    )


# --------------------------------------------------------------------------------------------
# Polynomials
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Form:
    """A homogeneous polynomial :math:`\\sum_\\gamma c_\\gamma z^\\gamma` as exponent rows and complex coefficients.

    Attributes
    ----------
    exponents : int array (M, n)
        One row per monomial, all of the same total degree.
    coefficients : complex array (M,)

    Examples
    --------
    :math:`u_1^2 u_2^2`, whose maximum on the unit circle is 1/4 (:func:`sos_sphere_bound`):

    >>> import numpy as np
    >>> from numerics.sos import Form
    >>> F = Form(np.array([[2, 2]]), np.array([1.0 + 0j]))
    >>> F.degree, F.n_vars
    (4, 2)
    """

    exponents: np.ndarray
    coefficients: np.ndarray

    def __post_init__(self) -> None:
        exps = np.asarray(self.exponents) if not isinstance(self.exponents, np.ndarray) else self.exponents
        if exps.ndim != 2 or exps.dtype.kind not in "iu" or (exps.size and exps.min() < 0):
            raise InputError(
                f"exponents must be an (M, n) array of non-negative integers, got {self.exponents!r:.80}",
                param="exponents",
            )
        try:
            coef = np.asarray(self.coefficients, dtype=np.complex128)
        except (TypeError, ValueError, OverflowError):
            raise InputError(
                f"coefficients must be an array of M complex numbers, got {self.coefficients!r:.80}",
                param="coefficients",
            ) from None
        if coef.shape != (exps.shape[0],) or not np.isfinite(coef).all():
            raise InputError(
                f"coefficients must be {exps.shape[0]} finite numbers (one per exponent row), got shape {coef.shape}",
                param="coefficients",
            )
        if exps.size and len(set(exps.sum(axis=1).tolist())) > 1:
            raise InputError("exponents must all have the same total degree (a homogeneous form)", param="exponents")

    @property
    def degree(self) -> int:
        return int(self.exponents[0].sum()) if len(self.exponents) else 0

    @property
    def n_vars(self) -> int:
        return int(self.exponents.shape[1])


def monomials(n: int, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """All monomials of ``degree`` in n variables: index tuples (M, degree) and exponent rows (M, n), M = C(n+d-1, d).

    Parameters
    ----------
    n : int
        Number of variables.
    degree : int

    Returns
    -------
    idx : int array (M, degree)
    exps : int16 array (M, n)

    Examples
    --------
    >>> from numerics.sos import monomials
    >>> idx, exps = monomials(2, 2)
    >>> idx.tolist(), exps.tolist()
    ([[0, 0], [0, 1], [1, 1]], [[2, 0], [1, 1], [0, 2]])
    >>> len(monomials(6, 3)[0])  # C(8, 3)
    56
    """
    n = check_positive_int(n, "n")
    degree = check_positive_int(degree, "degree")
    _check_monomials(n, degree)
    idx = np.array(list(combinations_with_replacement(range(n), degree)), dtype=np.int64).reshape(-1, degree)
    exps = np.zeros((len(idx), n), dtype=np.int16)
    for t in range(degree):
        np.add.at(exps, (np.arange(len(idx)), idx[:, t]), 1)
    return idx, exps


def _check_monomials(n: int, degree: int) -> int:
    """``M = C(n + degree - 1, degree)``, refused (before it is formed) when the tables of :func:`monomials`, ``M (n +
    degree)`` entries, are above :data:`MAX_MONOMIAL_ENTRIES`; names ``n`` when degree 1 is too large already."""
    log10_entries = log10_binomial(n + degree - 1, degree) + math.log10(n + degree)
    if log10_entries <= math.log10(MAX_MONOMIAL_ENTRIES) + 1e-9:
        M = math.comb(n + degree - 1, degree)
        if M * (n + degree) <= MAX_MONOMIAL_ENTRIES:
            return M
    param, value = ("n", n) if n * (n + 1) > MAX_MONOMIAL_ENTRIES else ("degree", degree)
    shown = f"~10^{log10_entries:.1f}" if math.isfinite(log10_entries) else "beyond 10^(10^300)"
    raise LimitError(
        f"{param} = {format_count(value)} is too large: the monomials of degree {format_count(degree)} in "
        f"{format_count(n)} variables need C(n + d - 1, d) (n + d) = {shown} table entries, above the limit "
        f"{MAX_MONOMIAL_ENTRIES:.0e}; use a smaller case or a grading",
        param=param,
        value=value,
        limit=MAX_MONOMIAL_ENTRIES,
        hint="use a smaller case",
    )


def _multinomial(exps: np.ndarray) -> np.ndarray:
    d = int(exps[0].sum())
    fact = np.array([math.factorial(i) for i in range(d + 1)], dtype=np.float64)
    return math.factorial(d) / np.prod(fact[exps], axis=1)


def margin_polynomials(
    task: Task,
    degree: int,
    grading: Grading,
    Q: np.ndarray | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Coefficients of :math:`P_c(u) = \sum_x S(x)^{\mathrm{deg}}r_c(x)` in the grading's variables z.

    With :math:`S(x) = a(x)\cdot z`, :math:`a(x) = V^\top X(x)` (X the flattened input), the coefficient of
    :math:`z^\alpha` is :math:`\binom{\mathrm{deg}}{\alpha}\sum_x a(x)^\alpha r_c(x)` (multinomial theorem); the sum
    streams over the dataset.

    Parameters
    ----------
    task : Task
        The dataset.
    degree : int
        Activation exponent deg.
    grading : Grading
        The variables z; ``grading.n`` must be the neuron's input size ``k d``.
    Q : array (N, C), optional
        Class weights (None = uniform q and tau).
    memory_budget : int
        Bytes for one streamed chunk of the dataset.

    Returns
    -------
    idx : int array (M, deg)
        Monomials as index tuples.
    exps : int array (M, n)
        The same as exponent rows.
    P : complex array (M, C)

    Raises
    ------
    ValueError
        A degree below 1, a grading of the wrong size, fewer than 2 classes, or more than :data:`MAX_PRODUCTS`.

    Examples
    --------
    Modular addition mod 3 with two inputs, quadratic neuron: ``C(7, 2) = 21`` monomials in 6 variables, 3 classes:

    >>> from numerics.modular import ModularTask
    >>> from numerics.sos import margin_polynomials, modular_grading
    >>> idx, exps, P = margin_polynomials(ModularTask(3, 2), 2, modular_grading(3, 2))
    >>> idx.shape, exps.shape, P.shape
    ((21, 2), (21, 6), (21, 3))
    """
    task = check_task(task)
    degree = _as_degree(degree)
    if not isinstance(grading, Grading):
        raise InputError(
            f"grading must be a Grading (e.g. modular_grading(p, k)), got {grading!r:.80}", param="grading"
        )
    memory_budget = check_positive_int(memory_budget, "memory_budget", minimum=0)
    n = task.n_blocks * task.block_size
    if grading.n != n:
        raise ValueError(f"grading has {grading.n} variables, the task's neuron input has k d = {n}")
    C = task.n_classes
    if C < 2:
        raise ValueError("the class-weighted margin needs at least 2 classes")
    N = task.n_points
    _check_products(N, n, degree)
    if Q is not None:
        try:
            Q = np.asarray(Q, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"Q must be a float array of shape (N, C), got {Q!r:.80}", param="Q") from None
        Q = check_class_weights(Q, task)
    M = _check_monomials(n, degree)
    chunk = min(max(1, int(memory_budget // (16 * (2 * M + n + C)))), max(N, 1))
    check_allocation(
        array_bytes(chunk, 2 * M + n + C, itemsize=16) + array_bytes(M, C, itemsize=16),
        param="memory_budget",
        value=memory_budget,
        what=f"one chunk of {format_count(chunk)} points (complex, {format_count(2 * M + n + C)} per point) and P",
        hint="use a smaller memory_budget",
    )
    idx, exps = monomials(n, degree)
    P = np.zeros((M, C), dtype=np.complex128)
    for start in range(0, N, chunk):
        stop = min(start + chunk, N)
        inputs, labels = task.batch(start, stop)
        labels = np.asarray(labels, dtype=np.int64)
        m = stop - start
        if np.issubdtype(inputs.dtype, np.integer):
            a = np.zeros((m, n), dtype=np.complex128)
            for j in range(inputs.shape[1]):
                a += grading.V[j * task.block_size + inputs[:, j], :]
        else:
            a = inputs.reshape(m, n) @ grading.V
        powers = a[:, idx[:, 0]].copy()
        for t in range(1, idx.shape[1]):
            powers *= a[:, idx[:, t]]
        if Q is None:
            r = np.full((m, C), -1.0 / (N * (C - 1)))
            r[np.arange(m), labels] = 1.0 / N
        else:
            Qc = Q[start:stop]
            r = -Qc.copy()
            r[np.arange(m), labels] += Qc.sum(axis=1)
        P += powers.T @ r
    P *= _multinomial(exps)[:, None]
    return idx, exps, P


def _check_products(N: int, n: int, degree: int) -> None:
    """Refuse ``N * C(n + degree - 1, degree) * degree > MAX_PRODUCTS`` before the monomials are formed, naming
    ``degree`` when degree 1 would be accepted and ``task`` otherwise."""
    log10_products = math.log10(max(N, 1)) + log10_binomial(n + degree - 1, degree) + math.log10(degree)
    if (
        log10_products <= math.log10(MAX_PRODUCTS) + 1e-9
        and N * math.comb(n + degree - 1, degree) * degree <= MAX_PRODUCTS
    ):
        return
    param, value = ("degree", degree) if N * n <= MAX_PRODUCTS else ("task", f"a task of {format_count(N)} points")
    shown = f"~10^{log10_products:.1f}" if math.isfinite(log10_products) else "beyond 10^(10^300)"
    raise LimitError(
        f"{param} = {format_count(value)} is too large: the margin polynomials need {format_count(N)} points x "
        f"C(n + d - 1, d) monomials of degree d = {format_count(degree)} in n = {format_count(n)} variables x d = "
        f"{shown} products, above MAX_PRODUCTS = {MAX_PRODUCTS:.0e}; use a smaller case",
        param=param,
        value=value,
        limit=MAX_PRODUCTS,
        hint="use a smaller case",
    )


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows = np.ascontiguousarray(rows)
    view = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
    return rows[first], inverse.ravel()


def squared_norm_form(exps: np.ndarray, P: np.ndarray) -> Form:
    r""":math:`F = \sum_c P_c^2` as a form of degree 2 deg: :math:`F_\gamma = \sum_{\alpha+\beta=\gamma}(PP^\top)_{\alpha\beta}`.

    Parameters
    ----------
    exps : int array (M, n)
        Exponent rows of the monomials of P.
    P : array (M, C)
        Coefficients of :math:`P_c` (column c).

    Returns
    -------
    Form

    Examples
    --------
    :math:`P_1 = z_1`, :math:`P_2 = 2z_2` give :math:`F = z_1^2 + 4z_2^2`:

    >>> import numpy as np
    >>> from numerics.sos import monomials, squared_norm_form
    >>> _, exps = monomials(2, 1)
    >>> F = squared_norm_form(exps, np.array([[1.0, 0.0], [0.0, 2.0]]))
    >>> F.exponents.tolist(), F.coefficients.real.tolist()
    ([[0, 2], [1, 1], [2, 0]], [4.0, 0.0, 1.0])
    """
    exps = np.asarray(exps) if not isinstance(exps, np.ndarray) else exps
    if exps.ndim != 2 or exps.dtype.kind not in "iu" or (exps.size and exps.min() < 0):
        raise InputError(f"exps must be an (M, n) array of non-negative integers, got {exps!r:.80}", param="exps")
    try:
        P = np.asarray(P) if isinstance(P, np.ndarray) else np.asarray(P, dtype=np.complex128)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"P must be a numeric (M, C) array, got {P!r:.80}", param="P") from None
    if P.ndim != 2 or P.shape[0] != exps.shape[0] or P.dtype.kind not in "iufc" or not np.isfinite(P).all():
        raise InputError(
            f"P must be a finite numeric array with one row per exponent row ({exps.shape[0]}), got shape {P.shape}",
            param="P",
        )
    M, n = exps.shape
    check_allocation(
        array_bytes(M, M, itemsize=16) + array_bytes(M * (M + 1) // 2, 4 + n, itemsize=8),
        param="exps",
        value=M,
        what=f"the products of {format_count(M)} monomials (M^2 complex entries and M(M+1)/2 exponent rows)",
        hint="use fewer monomials",
    )
    G = P @ P.T
    a, b = np.triu_indices(len(exps))
    rows, inverse = _unique_rows(exps[a] + exps[b])
    coef = np.zeros(len(rows), dtype=np.complex128)
    np.add.at(coef, inverse, G[a, b] * np.where(a == b, 1.0, 2.0))
    return Form(rows, coef)


def output_layer_factor(degree: int) -> float:
    r""":math:`c_{\mathrm{deg}} = \nu^{-1/2}(\mathrm{deg}/\nu)^{\mathrm{deg}/2}`, :math:`\nu=\mathrm{deg}+1`: the maximum of
    :math:`s(1-s^2)^{\mathrm{deg}/2}` over :math:`s\in[0,1]` (module doc, step 1).

    Parameters
    ----------
    degree : int
        Activation exponent deg (a real number >= 0; the formula holds for any).

    Returns
    -------
    float

    Examples
    --------
    For deg = 2, :math:`c_2 = 2/(3\sqrt3)`:

    >>> from numerics.sos import output_layer_factor
    >>> round(output_layer_factor(2), 12), round(2 / 3**1.5, 12)
    (0.38490017946, 0.38490017946)
    """
    if isinstance(degree, bool) or not isinstance(degree, (int, float, np.integer, np.floating)) or not degree >= 0:
        raise InputError(f"degree must be a number >= 0, got {degree!r:.80}", param="degree")
    if isinstance(degree, (float, np.floating)) and not math.isfinite(degree):
        raise InputError(f"degree must be finite, got {degree!r}", param="degree")
    nu = degree + 1
    if degree > 10**15:  # (deg/nu)^(deg/2) = exp(-(deg/2) log1p(1/deg)) -> e^(-1/2); nu^(-1/2) in log space
        return math.exp(-0.5 * math.log(nu) - 0.5)
    if degree == 0:
        return 1.0
    # In log space: the power (deg/nu)^(deg/2) of the rounded ratio deg/nu magnifies its rounding error deg/2 times
    # (4e-4 relative at deg = 10^15); log1p(1/deg) keeps the relative error at a few ulps for every degree.
    return math.exp(-0.5 * math.log(nu) - 0.5 * float(degree) * math.log1p(1.0 / float(degree)))


# --------------------------------------------------------------------------------------------
# The SDP
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SDPSize:
    """Size of the SOS program: variables n (and those the form uses, the others are dropped), monomials of
    degree deg in the used variables, Gram block sides (realified), scalar unknowns, equality constraints
    (coefficients of degree 2 deg matched).

    Attributes
    ----------
    n_vars, n_used : int
        Variables of the form, and those it uses.
    degree : int
        deg (half the degree of the form).
    n_monomials : int
        Monomials of degree deg in the used variables.
    block_sides : tuple of int
        Realified Gram block sides, largest first.
    n_scalars : int
        Scalar unknowns (the triangles of the blocks, plus lambda).
    n_equalities : int
        Coefficient equations.

    Examples
    --------
    See :func:`sdp_size`.

    >>> from numerics.sos import SDPSize
    >>> SDPSize(4, 4, 2, 10, (10,), 56, 35).dense_scaling_entries  # (10 * 11 / 2)^2
    3025
    """

    n_vars: int
    n_used: int
    degree: int
    n_monomials: int
    block_sides: tuple[int, ...]
    n_scalars: int
    n_equalities: int

    @property
    def largest_block(self) -> int:
        return max(self.block_sides) if self.block_sides else 0

    @property
    def dense_scaling_entries(self) -> int:
        """Entries of Clarabel's dense PSD scaling blocks, sum of (s(s+1)/2)^2: the memory driver."""
        return int(sum((s * (s + 1) // 2) ** 2 for s in self.block_sides if s > 1))


@dataclass
class _Blocks:
    reps: list[np.ndarray]  # monomial indices of each kept weight class
    mult: list[float]  # 2 if the class -w is distinct (its conjugate block is implied), else 1

    def side(self, i: int) -> int:
        """A class with its own conjugate (mult 1) has a real Gram block of side s in the basis of
        :func:`_real_basis`; a class paired with -w a Hermitian block, realified to side 2s."""
        s = len(self.reps[i])
        return s if self.mult[i] == 1.0 or s == 1 else 2 * s


@dataclass(frozen=True)
class _Vars:
    """The grading restricted to the variables the form uses."""

    weights: np.ndarray
    moduli: tuple[int, ...]
    conj: np.ndarray
    real: bool
    name: str


def _restrict(grading: Grading, used: np.ndarray) -> _Vars:
    where = -np.ones(grading.n, dtype=np.int64)
    where[used] = np.arange(len(used))
    conj = where[grading.conj[used]]
    if np.any(conj < 0):
        raise ValueError("the used variables must be closed under conjugation")
    real = bool(np.array_equal(conj, np.arange(len(used))) and np.allclose(grading.V[:, used].imag, 0))
    return _Vars(grading.weights[used], grading.moduli, conj, real, grading.name)


def _weight_classes(exps: np.ndarray, vg: _Vars) -> _Blocks:
    mod = np.array(vg.moduli)
    wt = (exps.astype(np.int64) @ vg.weights) % mod
    keys, inverse = _unique_rows(wt)
    neg_rows = (-keys) % mod
    key_index = {row.tobytes(): i for i, row in enumerate(keys)}
    blocks = _Blocks([], [])
    done: set[int] = set()
    for i in range(len(keys)):
        if i in done:
            continue
        j = key_index[neg_rows[i].tobytes()]
        done.update((i, j))
        blocks.reps.append(np.flatnonzero(inverse == i))
        blocks.mult.append(1.0 if i == j else 2.0)
    return blocks


def _equality_rows(exps: np.ndarray, blocks: _Blocks, vg: _Vars) -> tuple[np.ndarray, list]:
    """Monomials gamma = alpha' + beta of every Gram entry (alpha' the conjugate exponent), as unique rows, and per
    block the (a, b, row index) triples."""
    pairs = []
    for members in blocks.reps:
        a, b = np.meshgrid(members, members, indexing="ij")
        pairs.append((a.ravel(), b.ravel()))
    all_rows = np.concatenate([exps[a][:, vg.conj] + exps[b] for a, b in pairs])
    rows, inverse = _unique_rows(all_rows.astype(np.int16))
    out, start = [], 0
    for a, b in pairs:
        out.append((a, b, inverse[start : start + len(a)]))
        start += len(a)
    return rows, out


@dataclass
class _Setup:
    """Everything :func:`sos_sphere_bound` builds before calling a solver."""

    vg: _Vars
    d: int
    exps: np.ndarray
    blocks: _Blocks
    pairs: list
    F: np.ndarray  # F on the rows (complex)
    outside: np.ndarray  # |coefficients| of F not on a row (unused variables or weight != 0)
    N: np.ndarray  # ||z||^(2d) on the rows
    conj_row: np.ndarray
    keep: np.ndarray  # one row of each conjugate pair: its real part is an equation
    im_rows: np.ndarray  # kept rows whose imaginary part is an equation too
    sides: list[int]
    size: SDPSize


def _check_form(form: object, grading: object) -> None:
    if not isinstance(form, Form):
        raise InputError(f"form must be a Form (e.g. squared_norm_form(exps, P)), got {form!r:.80}", param="form")
    if grading is not None and not isinstance(grading, Grading):
        raise InputError(f"grading must be a Grading or None, got {grading!r:.80}", param="grading")


def _setup(form: Form, grading: Grading | None, drop_tol: float = 1e-13) -> _Setup:
    _check_form(form, grading)
    n = form.n_vars
    grading = grading or trivial_grading(n)
    if grading.n != n:
        raise ValueError(f"the form has {n} variables, the grading {grading.n}")
    if form.degree % 2 or form.degree < 2:
        raise ValueError(f"the form must have even degree >= 2, got {form.degree}")
    d = form.degree // 2
    coef = np.asarray(form.coefficients, dtype=np.complex128)
    scale = float(np.abs(coef).max()) if coef.size else 0.0
    big = np.abs(coef) > drop_tol * scale
    used = np.flatnonzero(form.exponents[big].sum(axis=0) > 0) if big.any() else np.arange(0)
    used = np.union1d(used, grading.conj[used]) if used.size else np.arange(n)
    vg = _restrict(grading, used)
    _, exps = monomials(len(used), d)
    blocks = _weight_classes(exps, vg)
    n_pairs = sum(len(r) ** 2 for r in blocks.reps)
    check_allocation(
        array_bytes(n_pairs, 3 * len(used) + 6, itemsize=8),
        param="form",
        value=f"a form of degree {form.degree} in {n} variables",
        what=f"the {format_count(n_pairs)} Gram entries of the SOS program (grading {grading.name}) and their monomials",
        hint="use a grading with smaller blocks or a smaller case",
    )
    rows, pairs = _equality_rows(exps, blocks, vg)
    row_index = {r.tobytes(): i for i, r in enumerate(rows)}
    conj_row = np.array([row_index[r[vg.conj].tobytes()] for r in rows])
    F = np.zeros(len(rows), dtype=np.complex128)
    outside = []
    off = np.setdiff1d(np.arange(n), used)
    for r, c in zip(form.exponents.astype(np.int16), coef):
        i = None if r[off].any() else row_index.get(r[used].tobytes())
        if i is None:
            outside.append(abs(c))
        else:
            F[i] += c
    N = np.zeros(len(rows))
    for e, m in zip(exps, _multinomial(exps)):  # ||z||^(2d) = sum_alpha mult(alpha) z^(alpha' + alpha)
        N[row_index[(e[vg.conj] + e).astype(np.int16).tobytes()]] += m
    keep = np.flatnonzero(np.arange(len(rows)) <= conj_row)
    im_rows = keep[conj_row[keep] != keep] if not vg.real else np.zeros(0, dtype=np.int64)
    sides = [blocks.side(i) for i in range(len(blocks.reps))]
    size = SDPSize(
        n,
        len(used),
        d,
        len(exps),
        tuple(sorted(sides, reverse=True)),
        sum(s * (s + 1) // 2 for s in sides) + 1,
        len(keep) + len(im_rows),
    )
    return _Setup(vg, d, exps, blocks, pairs, F, np.asarray(outside), N, conj_row, keep, im_rows, sides, size)


def _real_basis(exps: np.ndarray, members: np.ndarray, conj: np.ndarray) -> sp.csr_matrix:
    r"""Unitary T (s x s) with T m real-valued, for a class closed under conjugation: :math:`z^\alpha` if
    :math:`\alpha'=\alpha`, else :math:`(z^\alpha + z^{\alpha'})/\sqrt2` and :math:`-i(z^\alpha - z^{\alpha'})/\sqrt2`."""
    local = {e.tobytes(): i for i, e in enumerate(exps[members])}
    partner = np.array([local[e[conj].tobytes()] for e in exps[members]])
    rows: list[int] = []
    cols: list[int] = []
    vals: list[complex] = []
    r = 0
    h = 1 / math.sqrt(2)
    for a, b in enumerate(partner):
        if b == a:
            rows.append(r)
            cols.append(a)
            vals.append(1.0)
            r += 1
        elif a < b:
            rows += [r, r, r + 1, r + 1]
            cols += [a, b, a, b]
            vals += [h, h, -1j * h, 1j * h]
            r += 2
    return sp.csr_matrix((np.array(vals, dtype=np.complex128), (rows, cols)), shape=(len(members), len(members)))


def _gram_map(blocks: _Blocks, i: int, exps: np.ndarray, conj: np.ndarray) -> sp.csr_matrix:
    """Sparse complex K (s^2 x side^2): the Gram block H (row-major, s x s) = K vec(Z), Z the real PSD variable of
    side ``blocks.side(i)`` (vec column-major, as ``cp.vec(Z, order="F")``)."""
    members = blocks.reps[i]
    s, side = len(members), blocks.side(i)
    if side == 2 * s:  # H = (Z11 + Z22)/2 + i (Z21 - Z12)/2
        a, b = np.divmod(np.arange(s * s), s)
        rows = np.tile(np.arange(s * s), 4)
        cols = np.concatenate([a + side * b, (a + s) + side * (b + s), (a + s) + side * b, a + side * (b + s)])
        vals = np.repeat(np.array([0.5, 0.5, 0.5j, -0.5j]), s * s)
        return sp.csr_matrix((vals, (rows, cols)), shape=(s * s, side * side))
    T = _real_basis(exps, members, conj).tocoo()  # H = T^H G T: H_ab = sum_ij conj(T_ia) G_ij T_jb
    ti, ta, tv = T.row, T.col, T.data
    I_grid, J_grid = np.meshgrid(np.arange(len(tv)), np.arange(len(tv)), indexing="ij")
    I, J = I_grid.ravel(), J_grid.ravel()
    rows = ta[I] * s + ta[J]
    cols = ti[I] + side * ti[J]
    return sp.csr_matrix((np.conj(tv[I]) * tv[J], (rows, cols)), shape=(s * s, side * side))


def sdp_size(form: Form, grading: Grading | None = None) -> SDPSize:
    """The size of :func:`sos_sphere_bound`'s program for ``form`` (built, not solved).

    Parameters
    ----------
    form : Form
    grading : Grading, optional
        None = :func:`trivial_grading` (one block).

    Returns
    -------
    SDPSize

    Examples
    --------
    Modular addition mod 3 (k = 2, deg = 2): the Fourier blocks split the single Gram block of side 10 (the two
    constant coordinates do not enter F):

    >>> from numerics.modular import ModularTask
    >>> from numerics.sos import margin_polynomials, modular_grading, sdp_size, squared_norm_form
    >>> _, exps, P = margin_polynomials(ModularTask(3, 2), 2, modular_grading(3, 2))
    >>> F = squared_norm_form(exps, P)
    >>> sdp_size(F).block_sides, sdp_size(F, modular_grading(3, 2)).block_sides
    ((10,), (2, 1, 1, 1, 1))
    """
    return _setup(form, grading).size


@dataclass(frozen=True)
class SOSResult:
    r"""Outcome of :func:`sos_sphere_bound`: a certified upper bound on :math:`\max_{\|u\|=1}F(u)`.

    Attributes
    ----------
    bound : float
        :math:`\lambda + \varepsilon + \|R\|_1 +` pad: rigorous (module doc, step 4).
    value : float
        :math:`\lambda`, the SOS program's optimal value as the solver returned it.
    dual_value : float
        :math:`\langle F, y\rangle` of the moment (dual) solution.
    gap : float
        ``value - dual_value`` (the duality gap).
    residual_l1 : float
        :math:`\|R\|_1`, the coefficient mismatch of the SOS identity (primal feasibility).
    gram_min_eig : float
        Smallest eigenvalue over the Gram blocks (its negative part is :math:`\varepsilon`).
    moment_min_eig : float
        Smallest eigenvalue over the moment matrices, relative to the largest (dual feasibility; >= 0 up to the
        solver's tolerance).
    normalization_residual : float
        :math:`|\langle N, y\rangle - 1|` (dual feasibility).
    rounding_pad : float
        Bound on float64 rounding in forming R and the eigenvalues, added to ``bound``.
    invariance_defect : float
        Largest :math:`|F_\gamma|` outside weight 0 (0 up to rounding when the grading is a true symmetry; it is
        part of :math:`\|R\|_1`).
    solver, status : str
    feasibility_tolerance : float
        The solver's feasibility tolerance (scaled problem), recorded with the bound.
    attempts : tuple of str
        Solvers tried before the one that succeeded, and why they were rejected.
    size : SDPSize
    scale : float
        max |F_gamma| (the solver sees F / scale).
    build_seconds, solve_seconds : float
    grading : str

    Examples
    --------
    :math:`u_1^2u_2^2` on the unit circle (maximum 1/4 at :math:`u_1 = u_2 = 1/\sqrt2`): the certified bound is 1/4 up
    to the solver's tolerance, and never below it:

    >>> import numpy as np
    >>> from numerics.sos import Form, sos_sphere_bound
    >>> r = sos_sphere_bound(Form(np.array([[2, 2]]), np.array([1.0 + 0j])))
    >>> round(float(r.bound), 8), bool(r.bound >= 0.25), r.solver, r.size.block_sides
    (0.25, True, 'CLARABEL', (3,))
    >>> bool(abs(r.gap) < 1e-8), bool(r.correction < 1e-8)
    (True, True)
    """

    bound: float
    value: float
    dual_value: float
    gap: float
    residual_l1: float
    gram_min_eig: float
    moment_min_eig: float
    normalization_residual: float
    rounding_pad: float
    invariance_defect: float
    solver: str
    status: str
    feasibility_tolerance: float
    attempts: tuple[str, ...]
    size: SDPSize
    scale: float
    build_seconds: float
    solve_seconds: float
    grading: str

    @property
    def relative_gap(self) -> float:
        return float(abs(self.gap) / max(abs(self.value), abs(self.dual_value), float(np.finfo(float).tiny)))

    @property
    def correction(self) -> float:
        """``bound - value``: what rigor adds to the solver's value."""
        return float(self.bound - self.value)

    def summary(self) -> dict[str, object]:
        """Plain data for records."""
        return {
            "bound": self.bound,
            "solver_value": self.value,
            "moment_value": self.dual_value,
            "duality_gap": self.gap,
            "residual_l1": self.residual_l1,
            "gram_min_eig": self.gram_min_eig,
            "moment_min_eig": self.moment_min_eig,
            "normalization_residual": self.normalization_residual,
            "rounding_pad": self.rounding_pad,
            "invariance_defect": self.invariance_defect,
            "solver": self.solver,
            "status": self.status,
            "feasibility_tolerance": self.feasibility_tolerance,
            "attempts": list(self.attempts),
            "grading": self.grading,
            "n_vars": self.size.n_vars,
            "n_monomials": self.size.n_monomials,
            "n_blocks": len(self.size.block_sides),
            "largest_block": self.size.largest_block,
            "n_scalars": self.size.n_scalars,
            "n_equalities": self.size.n_equalities,
            "build_s": self.build_seconds,
            "solve_s": self.solve_seconds,
        }


def _feasibility_tolerance(name: str, options: Mapping[str, object]) -> float:
    key = {"CLARABEL": "tol_feas", "SCS": "eps_abs"}.get(name)
    return float(options.get(key, float("nan"))) if key else float("nan")  # type: ignore[arg-type]


def sos_sphere_bound(
    form: Form,
    grading: Grading | None = None,
    solver: str | Sequence[str] | None = None,
    solver_options: Mapping[str, Mapping[str, object]] | None = None,
    max_block: int = MAX_BLOCK,
    max_scaling: int = MAX_SCALING,
) -> SOSResult:
    r"""Certified upper bound on :math:`\max_{\|u\|_2=1}F(u)` for a form F of even degree 2 deg (module doc).

    Parameters
    ----------
    form : Form
        F in the grading's variables z (e.g. :func:`squared_norm_form`).
    grading : Grading, optional
        The symmetry whose weight classes give the Gram blocks; None = :func:`trivial_grading` (one block).
    solver : str or sequence of str, optional
        cvxpy solvers tried in order (default Clarabel, then SCS).
    solver_options : mapping, optional
        Per-solver options overriding :data:`SOS_SOLVER_OPTIONS`.
    max_block, max_scaling : int
        Refuse programs whose largest (realified) Gram block, or whose total of dense scaling entries
        (:attr:`SDPSize.dense_scaling_entries`), is larger.

    Raises
    ------
    Returns
    -------
    SOSResult

    Raises
    ------
    ValueError
        For an odd degree, a form whose variable count differs from the grading's, or a program above ``max_block``
        or ``max_scaling``.
    SOSError
        If every solver fails (no number from a failed solve is returned).

    Examples
    --------
    :math:`3\|u\|^4` has maximum 3 on the sphere:

    >>> import numpy as np
    >>> from numerics.sos import Form, sos_sphere_bound
    >>> F = Form(np.array([[4, 0], [2, 2], [0, 4]]), np.array([3.0, 6.0, 3.0], dtype=complex))
    >>> r = sos_sphere_bound(F)
    >>> round(float(r.bound), 8), bool(r.bound >= 3)
    (3.0, True)
    >>> sos_sphere_bound(Form(np.array([[2, 1]]), np.array([1.0 + 0j])))
    Traceback (most recent call last):
    ...
    ValueError: the form must have even degree >= 2, got 3
    """
    return _sos_sphere_bound(form, grading, solver, solver_options, max_block, max_scaling, "form")


def _check_solvers(solver: object, solver_options: object) -> tuple[tuple[str, ...], dict[str, dict[str, object]]]:
    """The solver names to try (installed cvxpy solvers) and the options per solver."""
    import cvxpy as cp  # deferred: cvxpy is slow to import

    if solver is None:
        names: tuple[str, ...] = SOS_SOLVERS
    elif isinstance(solver, str):
        names = (solver.upper(),)
    elif isinstance(solver, Sequence) and solver and all(isinstance(x, str) for x in solver):
        names = tuple(x.upper() for x in solver)
    else:
        raise InputError(
            f"solver must be a solver name or a non-empty sequence of names, got {solver!r:.80}", param="solver"
        )
    installed = set(cp.installed_solvers())
    unknown = [x for x in names if x not in installed]
    if unknown:
        raise InputError(
            f"solver {unknown[0]!r} is not an installed cvxpy solver; installed: {', '.join(sorted(installed))}",
            param="solver",
        )
    if solver_options is not None and (
        not isinstance(solver_options, Mapping)
        or not all(isinstance(k, str) and isinstance(v, Mapping) for k, v in solver_options.items())
    ):
        raise InputError(
            f"solver_options must map solver names to mappings of options, got {solver_options!r:.80}",
            param="solver_options",
        )
    options: dict[str, dict[str, object]] = {k: dict(v) for k, v in SOS_SOLVER_OPTIONS.items()}
    for k, v in (solver_options or {}).items():
        options.setdefault(k.upper(), {}).update(v)
    return names, options


def _sos_sphere_bound(
    form: Form,
    grading: Grading | None,
    solver: str | Sequence[str] | None,
    solver_options: Mapping[str, Mapping[str, object]] | None,
    max_block: int,
    max_scaling: int,
    param: str,
    value: object = None,
) -> SOSResult:
    """:func:`sos_sphere_bound`, naming ``param`` (and ``value``) when the program is too large."""
    import cvxpy as cp  # deferred: cvxpy is slow to import

    _check_form(form, grading)
    max_block = check_positive_int(max_block, "max_block")
    max_scaling = check_positive_int(max_scaling, "max_scaling")
    names, options = _check_solvers(solver, solver_options)
    t0 = time.perf_counter()
    st = _setup(form, grading)
    grading_name = (grading or trivial_grading(form.n_vars)).name
    blocks, pairs, sides, size = st.blocks, st.pairs, st.sides, st.size
    value = value if value is not None else f"a form of degree {form.degree} in {form.n_vars} variables"
    if max(sides) > max_block or size.dense_scaling_entries > max_scaling:
        raise LimitError(
            f"{param} = {format_count(value)} is too large: the SOS program has largest Gram block {max(sides)} "
            f"(max_block = {max_block}) and dense scaling entries {size.dense_scaling_entries:.1e} (max_scaling = "
            f"{max_scaling:.0e}); {size.n_monomials} monomials of degree {st.d} in {size.n_used} variables, grading "
            f"{grading_name}; use a smaller case or a grading with smaller blocks",
            param=param,
            value=value,
            limit=max_block,
            hint="use a smaller case or a grading with smaller blocks",
        )
    check_allocation(
        _BYTES_PER_SCALING_ENTRY * size.dense_scaling_entries,
        param=param,
        value=value,
        what=f"the solver's {size.dense_scaling_entries:.1e} dense scaling entries",
        hint="use a smaller case or a grading with smaller blocks",
    )
    F, N, keep, im_rows, conj_row = st.F, st.N, st.keep, st.im_rows, st.conj_row
    n_rows = len(F)
    self_conj = conj_row[keep] == keep
    pos = -np.ones(n_rows, dtype=np.int64)
    pos[keep] = np.arange(len(keep))
    n_eq_re = len(keep)
    im_pos = -np.ones(n_rows, dtype=np.int64)
    im_pos[im_rows] = n_eq_re + np.arange(len(im_rows))
    n_eq = size.n_equalities
    scale = float(max(np.abs(F).max(initial=0.0), st.outside.max(initial=0.0)))
    scale = scale if scale > 0 else 1.0
    rhs = np.concatenate([F[keep].real, F[im_rows].imag]) / scale
    lam = cp.Variable()
    terms = []
    variables: list = []  # per block: a PSD matrix variable, or the position in the vector of 1 x 1 blocks
    maps: list = []  # per block: K with vec(H) = K vec(Z)
    ones_rows: list[int] = []
    ones_vals: list[float] = []
    for i, ((_, _, g), members, mult) in enumerate(zip(pairs, blocks.reps, blocks.mult)):
        if len(members) == 1:  # a 1 x 1 block is a nonnegative scalar (Hermitian 1 x 1 is real)
            variables.append(len(ones_rows))
            maps.append(None)
            ones_rows.append(pos[g[0]])
            ones_vals.append(mult)
            continue
        side = blocks.side(i)
        K = _gram_map(blocks, i, st.exps, st.vg.conj)
        E = sp.csr_matrix((np.full(len(g), mult), (g, np.arange(len(g)))), shape=(n_rows, len(g)))
        A = (E @ K).tocsr()  # coefficient of every row, complex
        A_eq = sp.vstack([A[keep].real, A[im_rows].imag]).tocsr()
        Z = cp.Variable((side, side), PSD=True)
        variables.append(Z)
        maps.append(K)
        terms.append(A_eq @ cp.vec(Z, order="F"))
    ones = cp.Variable(len(ones_rows), nonneg=True) if ones_rows else None
    if ones is not None:
        terms.append(
            sp.csr_matrix((ones_vals, (ones_rows, np.arange(len(ones_rows)))), shape=(n_eq, len(ones_rows))) @ ones
        )
    Nvec = np.concatenate([N[keep], np.zeros(len(im_rows))])
    con = lam * Nvec - sum(terms[1:], terms[0]) == rhs
    problem = cp.Problem(cp.Minimize(lam), [con])
    build = time.perf_counter() - t0
    attempts: list[str] = []
    for name in names:
        t1 = time.perf_counter()
        try:
            with warnings.catch_warnings():  # "solution may be inaccurate": the bound below accounts for it
                warnings.simplefilter("ignore", UserWarning)
                problem.solve(solver=name, **options.get(name, {}))
        except Exception as exc:  # any solver failure: try the next one
            attempts.append(f"{name}: raised {type(exc).__name__}: {exc}")
            continue
        elapsed = time.perf_counter() - t1
        status = str(problem.status)
        if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or lam.value is None or con.dual_value is None:
            attempts.append(f"{name}: status {status!r}")
            continue
        grams = []
        for Z, K in zip(variables, maps):
            if K is None:
                # K is None only for the 1 x 1 blocks, which made ``ones``; the solve succeeded, so it has a value
                assert ones is not None and ones.value is not None
                grams.append(np.array([[float(ones.value[Z])]], dtype=np.complex128) * scale)
                continue
            Zv = np.asarray(Z.value, dtype=np.float64)
            H = (K @ ((Zv + Zv.T) / 2).ravel(order="F")).reshape(round(math.sqrt(K.shape[0])), -1)
            grams.append((H + H.conj().T) / 2 * scale)
        y = np.asarray(con.dual_value, dtype=np.float64).ravel()
        if float(Nvec @ y) < 0:  # cvxpy's sign convention for equality duals
            y = -y
        # pseudo-moments m_gamma on every row (a real functional: m at the conjugate row is the conjugate)
        m = np.zeros(n_rows, dtype=np.complex128)
        m[keep] = np.where(self_conj, y[:n_eq_re], y[:n_eq_re] / 2)
        if len(im_rows):
            m[im_rows] -= 0.5j * y[n_eq_re:]
        other = np.flatnonzero(pos < 0)
        m[other] = np.conj(m[conj_row[other]])
        return _certify_solution(
            lam=float(lam.value) * scale,
            grams=grams,
            moments=m,
            pairs=pairs,
            blocks=blocks,
            F=F,
            outside=st.outside,
            N=N,
            name=name,
            status=status,
            tol=_feasibility_tolerance(name, options.get(name, {})),
            attempts=tuple(attempts),
            size=size,
            scale=scale,
            build=build,
            elapsed=elapsed,
            grading=grading_name,
        )
    raise SOSError(
        f"SOS program ({n_eq} equalities, blocks up to {max(sides)}) failed with every solver tried; no bound is "
        "returned from a failed solve. " + "; ".join(attempts)
    )


def _certify_solution(
    lam: float,
    grams: list[np.ndarray],
    moments: np.ndarray,
    pairs: list,
    blocks: _Blocks,
    F: np.ndarray,
    outside: np.ndarray,
    N: np.ndarray,
    name: str,
    status: str,
    tol: float,
    attempts: tuple[str, ...],
    size: SDPSize,
    scale: float,
    build: float,
    elapsed: float,
    grading: str,
) -> SOSResult:
    """The rigorous bound of the module doc (step 4) and the dual residuals, from a solver's output."""
    u = np.finfo(float).eps
    gram_poly = np.zeros(len(F), dtype=np.complex128)
    eps, min_eig, abs_terms = 0.0, np.inf, 0.0
    moment_min, moment_max = np.inf, 0.0
    for (a, b, g), members, mult, H in zip(pairs, blocks.reps, blocks.mult, grams):
        s = len(members)
        ev = np.linalg.eigvalsh(H)
        min_eig = min(min_eig, float(ev[0]))
        # eigenvalues of a Hermitian matrix are accurate to about s u ||H||_F
        eps = max(eps, -float(ev[0]) + s * u * float(np.linalg.norm(H)))
        la, lb = np.searchsorted(members, a), np.searchsorted(members, b)
        contrib = mult * H[la, lb]
        np.add.at(gram_poly, g, contrib)
        abs_terms += float(np.abs(contrib).sum())
        Mm = moments[g].reshape(s, s)
        mev = np.linalg.eigvalsh((Mm + Mm.conj().T) / 2)
        moment_min, moment_max = min(moment_min, float(mev[0])), max(moment_max, float(mev[-1]))
    R = lam * N - gram_poly - F
    residual = float(np.abs(R).sum() + outside.sum())
    # each coefficient of R is a float64 sum of at most (number of Gram entries) terms
    n_terms = sum(len(members) ** 2 for members in blocks.reps) + 2
    pad = n_terms * u * (abs(lam) * float(N.sum()) + abs_terms + float(np.abs(F).sum()) + float(outside.sum()))
    dual = float(np.real(F @ moments))
    # F = F_rows(z_S) + F_outside(z): the SOS identity bounds F_rows(z_S) by ||z_S||^(2d) core (homogeneity), which
    # is at most max(core, 0) when variables were dropped (||z_S|| <= 1); |F_outside| <= sum |coefficients|.
    core = lam + max(eps, 0.0) + float(np.abs(R).sum()) + pad
    bound = (max(core, 0.0) if size.n_used < size.n_vars else core) + float(outside.sum())
    return SOSResult(
        bound=float(bound),
        value=float(lam),
        dual_value=float(dual),
        gap=float(lam - dual),
        residual_l1=float(residual),
        gram_min_eig=float(min_eig),
        moment_min_eig=float(moment_min / max(moment_max, float(np.finfo(float).tiny))),
        normalization_residual=abs(float(np.real(N @ moments)) - 1.0),
        rounding_pad=float(pad),
        invariance_defect=float(outside.max(initial=0.0)),
        solver=name,
        status=status,
        feasibility_tolerance=tol,
        attempts=attempts,
        size=size,
        scale=float(scale),
        build_seconds=float(build),
        solve_seconds=float(elapsed),
        grading=grading,
    )


@dataclass(frozen=True)
class SingleNeuronBound:
    r"""Certified :math:`\max_{\|\theta\|\le1}\Psi_Q\le` ``bound`` :math:`= c_{\mathrm{deg}}(\sqrt{\text{sos.bound}}+\delta)`.

    Attributes
    ----------
    bound : float
        The rigorous upper bound on the single-neuron maximum (hence on :math:`\gamma^*`).
    solver_value : float
        :math:`c_{\mathrm{deg}}\sqrt{\lambda}`: the solver's value before the rigor correction.
    moment_value : float
        :math:`c_{\mathrm{deg}}\sqrt{\langle F, y\rangle}`: the moment (dual) value on the same scale.
    dropped : float
        :math:`\delta`, a bound on :math:`\|P_{\mathrm{dropped}}(u)\|_2` on the unit sphere for the coefficients of P
        below ``drop_tol`` that were left out of F (:func:`single_neuron_sdp_bound`).
    sos : SOSResult
    degree : int

    Examples
    --------
    >>> from numerics.groups import GroupTask
    >>> from numerics.sos import group_grading, single_neuron_sdp_bound
    >>> b = single_neuron_sdp_bound(GroupTask("Z2"), 2, group_grading("Z2"))
    >>> b.degree, b.dropped < 1e-12, b.sos.size.block_sides
    (2, True, (2, 1))
    >>> round(b.bound, 8), round(b.solver_value, 8), round(b.moment_value, 8)
    (0.27216553, 0.27216553, 0.27216553)
    """

    bound: float
    solver_value: float
    moment_value: float
    dropped: float
    sos: SOSResult
    degree: int

    def summary(self) -> dict[str, object]:
        """Plain data for records (the SOS details, on the scale of F, under ``sos``)."""
        return {
            "bound": self.bound,
            "solver_value": self.solver_value,
            "moment_value": self.moment_value,
            "dropped_coefficients_bound": self.dropped,
            "sos": self.sos.summary(),
        }


def single_neuron_sdp_bound(
    task: Task,
    degree: int,
    grading: Grading | None = None,
    Q: np.ndarray | None = None,
    solver: str | Sequence[str] | None = None,
    solver_options: Mapping[str, Mapping[str, object]] | None = None,
    max_block: int = MAX_BLOCK,
    drop_tol: float = 1e-13,
) -> SingleNeuronBound:
    r"""Rigorous upper bound on :math:`\max_{\|\theta\|_2\le1}\Psi_Q(\theta)` (module doc, steps 1-4).

    Coefficients of P (in the grading's variables) with :math:`\max(|P_{\alpha c}|, |P_{\alpha' c}|)` below
    ``drop_tol`` times the largest are left out of F (most are rounding noise of exact zeros); their effect is
    bounded by :math:`\delta = \|(\sum_\alpha|P_{\alpha c}|)_c\|_2` (:math:`|z^\alpha|\le1` on the sphere), so
    :math:`\max\|P\|\le\sqrt{\max F_{\mathrm{kept}}}+\delta`.

    Parameters
    ----------
    task : Task
        The dataset.
    degree : int
        Activation exponent.
    grading : Grading, optional
        A symmetry of the weighted problem (:func:`modular_grading`, :func:`group_grading`, :func:`sign_grading`);
        None = no structure (one Gram block). A grading that is not a symmetry does not make the bound wrong: the
        non-invariant part of F is carried by the residual, and the bound is loose.
    Q : array (N, C), optional
        Class weights (None = uniform q and tau).
    solver, solver_options, max_block :
        As in :func:`sos_sphere_bound`.
    drop_tol : float
        Relative size below which coefficients of P are left out of F (and accounted for by delta).

    Returns
    -------
    SingleNeuronBound

    Examples
    --------
    Group composition in :math:`\mathbb Z_2` (uniform weights, the max-margin ones here): the certified bound is
    Thm 7.9's :math:`\gamma^* = \sqrt6/9` from above:

    >>> from theory.groups import max_margin
    >>> from numerics.groups import GroupTask
    >>> from numerics.sos import group_grading, single_neuron_sdp_bound
    >>> b = single_neuron_sdp_bound(GroupTask("Z2"), 2, group_grading("Z2"))
    >>> gamma = float(max_margin("Z2"))
    >>> max_margin("Z2"), round(b.bound, 8), bool(gamma <= b.bound <= gamma * (1 + 1e-8))
    (sqrt(6)/9, 0.27216553, True)
    """
    task = check_task(task)
    degree = _as_degree(degree)
    if grading is not None and not isinstance(grading, Grading):
        raise InputError(f"grading must be a Grading or None, got {grading!r:.80}", param="grading")
    max_block = check_positive_int(max_block, "max_block")
    if (
        isinstance(drop_tol, bool)
        or not isinstance(drop_tol, (int, float, np.integer, np.floating))
        or not 0 <= drop_tol < 1  # NaN compares False
    ):
        raise InputError(f"drop_tol must be a number in [0, 1), got {drop_tol!r:.80}", param="drop_tol")
    _check_solvers(solver, solver_options)
    n = task.n_blocks * task.block_size
    grading = grading or trivial_grading(n)
    _, exps, P = margin_polynomials(task, degree, grading, Q)
    _, conj_idx = _conjugate_monomials(exps, grading.conj)
    size = np.abs(P).max(axis=1)
    if not size.max(initial=0.0) > 0:  # every margin polynomial vanishes: nothing for an SOS bound to bound
        raise InputError(
            "Psi_Q is identically 0 for this task and these class weights (every margin polynomial vanishes, e.g. "
            "equal inputs with different labels): every neuron scores 0, so the single-neuron bound is 0",
            param="task",
        )
    small = np.maximum(size, size[conj_idx]) <= drop_tol * size.max(initial=0.0)
    delta = float(np.linalg.norm(np.abs(P[small]).sum(axis=0)))
    res = _sos_sphere_bound(
        squared_norm_form(exps[~small], P[~small]),
        grading,
        solver,
        solver_options,
        max_block,
        MAX_SCALING,
        "task",
        f"{type(task).__name__} of {format_count(task.n_points)} points at degree {degree}",
    )
    c = output_layer_factor(degree)
    return SingleNeuronBound(
        bound=c * (math.sqrt(max(res.bound, 0.0)) + delta),
        solver_value=c * math.sqrt(max(res.value, 0.0)),
        moment_value=c * math.sqrt(max(res.dual_value, 0.0)),
        dropped=delta,
        sos=res,
        degree=int(degree),
    )


def _conjugate_monomials(exps: np.ndarray, conj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exponent rows of the conjugate monomials and the index of each among ``exps``."""
    index = {e.tobytes(): i for i, e in enumerate(exps)}
    conj_exps = exps[:, conj]
    return conj_exps, np.array([index[e.tobytes()] for e in conj_exps], dtype=np.int64)
