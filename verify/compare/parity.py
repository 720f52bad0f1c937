"""A trained sparse-parity network against Edelman Thm 7.8.

Reads a :class:`numerics.margins.HomogeneousNetwork` (``U (m, 1, n)``, ``W (m, 2)``, degree k), whatever produced it.
Predictions come from ``theory.parity`` only:

* margin ratio :math:`h(\\theta)/\\|\\theta\\|^{k+1}_{2,k+1}/\\gamma^*(k)`, which never exceeds 1;
* for the top ``2^{k-1}`` neurons by norm, normalized to unit norm: share of :math:`\\|u\\|^2` on S, the
  largest deviation of :math:`|u_j|` (j in S) from :math:`1/\\sqrt{k+1}`, the largest off-support entry, the
  deviation of w from :math:`\\pm[1,-1]/\\sqrt{2(k+1)}`, and the sign rule :math:`(\\prod_S u_j)(w_0-w_1)>0`;
* the share of the norm power :math:`\\sum_i\\|\\theta_i\\|^{k+1}` carried by neurons of that structure
  (Lemma 7.4: all of it at the max margin) and the number of dominant neurons (fewest carrying 99%);
* optionally the LP re-weighting of the learned unit directions (``numerics.certificates``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from numerics.margins import HomogeneousNetwork, evaluate
from numerics.parity import SparseParityTask
from theory import parity as tp

__all__ = ["ParityComparison", "compare_parity"]


@dataclass(frozen=True)
class ParityComparison:
    """Learned-vs-predicted metrics of one sparse-parity network (module docstring).

    Attributes
    ----------
    top_neurons : tuple of int
        Indices of the ``n_top`` largest-norm neurons (the ones checked against the structure).
    support_share, max_abs_u_deviation, max_off_support, max_w_deviation : float
        Worst values over the top neurons (after normalizing each neuron to unit norm).
    min_sign_product : float
        Smallest :math:`(\\prod_S\\bar u_j)(\\bar w_0-\\bar w_1)` over the top neurons (> 0: sign rule holds).
    structured_share : float
        Share of the norm power in neurons matching the structure within ``structure_tol``.
    n_dominant : int
        Fewest neurons carrying 99% of the norm power.
    lp_ratio : float or None
        LP value over the learned directions / gamma* (only with ``lp=True``).
    """

    n: int
    support: tuple[int, ...]
    gamma_star: float
    normalized_margin: float
    margin_ratio: float
    accuracy: float
    top_neurons: tuple[int, ...]
    support_share: float
    max_abs_u_deviation: float
    max_off_support: float
    max_w_deviation: float
    min_sign_product: float
    structure_tol: float
    structured_share: float
    n_dominant: int
    lp_ratio: float | None = None

    @property
    def k(self) -> int:
        return len(self.support)

    @property
    def max_structure_deviation(self) -> float:
        """Worst of the |u_j|, off-support and w deviations over the top neurons."""
        return max(self.max_abs_u_deviation, self.max_off_support, self.max_w_deviation)

    @property
    def sign_rule_holds(self) -> bool:
        return self.min_sign_product > 0


def compare_parity(
    net: HomogeneousNetwork,
    n: int,
    support: Sequence[int],
    *,
    n_top: int | None = None,
    structure_tol: float = 0.01,
    lp: bool = False,
    rel_mass: float = 1e-3,
) -> ParityComparison:
    """Compare a trained parity network with Thm 7.8.

    Parameters
    ----------
    net : HomogeneousNetwork
        ``U (m, 1, n)``, ``W (m, 2)``, degree ``k = |S|``.
    n_top : int, optional
        Number of largest-norm neurons checked (default ``2^{k-1}``, the construction's width;.
    structure_tol : float
        Tolerance of the per-neuron match used by ``structured_share``.
    lp : bool
        Also solve the LP over the learned unit directions with norm share >= ``rel_mass / m``.
    """
    task = SparseParityTask(n, tuple(support))
    k = task.k
    if net.degree != k or net.U.shape[1:] != (1, task.n) or net.W.shape[1] != 2:
        raise ValueError(
            f"a network for the ({task.n}, {k})-sparse parity needs degree k = {k}, U (m, 1, {task.n}) and W (m, 2); "
            f"got degree {net.degree}, U{net.U.shape}, W{net.W.shape}"
        )
    gamma = float(tp.max_margin(k))
    pred = tp.structural_prediction(task.n, task.support)
    rep = evaluate(net, task)
    norms = net.neuron_norms()
    mass = norms ** (k + 1)
    total = float(mass.sum())
    if total <= 0:
        raise ValueError("the zero network has no normalized margin")
    n_top = min(net.width, int(tp.min_width(k)) if n_top is None else int(n_top))
    order = np.argsort(-norms)
    top = [int(i) for i in order[:n_top] if norms[i] > 0]
    devs = [pred.deviations(net.U[i, 0], net.W[i]) for i in top]
    matched = np.array([norms[i] > 0 and pred.matches(net.U[i, 0], net.W[i], structure_tol) for i in range(net.width)])
    cum = np.cumsum(np.sort(mass)[::-1]) / total
    lp_ratio = None
    if lp:
        from numerics.certificates import solve_dictionary_lp

        sig = np.flatnonzero(mass / total >= rel_mass / net.width)
        lp_ratio = solve_dictionary_lp(net.subset(sig).nonzero(), task).primal_value / gamma
    return ParityComparison(
        n=task.n,
        support=task.support,
        gamma_star=gamma,
        normalized_margin=rep.normalized_margin,
        margin_ratio=rep.normalized_margin / gamma,
        accuracy=rep.accuracy,
        top_neurons=tuple(top),
        support_share=min(d["support_share"] for d in devs),
        max_abs_u_deviation=max(d["abs_u"] for d in devs),
        max_off_support=max(d["off_support"] for d in devs),
        max_w_deviation=max(d["w"] for d in devs),
        min_sign_product=min(d["sign_product"] for d in devs),
        structure_tol=structure_tol,
        structured_share=float(mass[matched].sum() / total),
        n_dominant=int(np.searchsorted(cum, 0.99 - 1e-12) + 1),
        lp_ratio=lp_ratio,
    )
