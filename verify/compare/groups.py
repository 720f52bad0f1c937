r"""A trained quadratic group network against Edelman Thm 7.9 (thesis Ch. 7, Fig. 7.6, App. D.2-D.3).

The network is a :class:`numerics.margins.HomogeneousNetwork` with ``U (m, 2, |G|)``, ``W (m, |G|)`` and degree 2 on
the full group-composition dataset (``numerics.groups.GroupTask``). Predictions come from ``theory.groups``
(``docs/groups.md``):

* margin ratio :math:`h(\theta)/\|\theta\|_{2,3}^3/\gamma^*(G)`, never above 1. :math:`\gamma^*` is the closed
  form of Thm 7.9 when its hypotheses hold, otherwise the character-level LP of App. D.9.2
  (``numerics.groups.character_lp``; A_5, S_6);
* per-neuron isotypic power (``numerics.groups.neuron_irrep_diagnostics``): the share of the norm mass
  :math:`\sum_i\|\omega_i\|^3` carried by neurons whose u, v and w all have maximum normalized power
  >= ``purity_threshold`` in one common irrep (Thm 7.9 part 1);
* irrep coverage: every nontrivial irrep (every irrep the LP uses, when the LP gives gamma*) dominates
  some significant neuron and no significant neuron is dominated by the trivial irrep (part 2);
* neurons per irrep against :math:`d_R` (the construction uses :math:`2d_R^3` per irrep; soft).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from numerics.groups import GroupTask, character_lp, neuron_irrep_diagnostics
from numerics.margins import HomogeneousNetwork, evaluate
from theory import finite_groups as fg
from theory import groups as tg

from .common import margin_fields

__all__ = ["GroupComparison", "compare_groups", "gamma_star"]


@dataclass(frozen=True)
class GroupComparison:
    """Learned-vs-predicted metrics of one quadratic group network (see module docstring).

    Attributes
    ----------
    group : str
    gamma_star : float
    gamma_source : str
        ``"closed form"`` (Thm 7.9) or ``"character LP"`` (App. D.9.2).
    normalized_margin, margin_ratio, accuracy : float
    wrong_logit_spread : float
        Largest spread of the incorrect logits divided by the minimum margin (0 at the construction).
    single_irrep_share : float
        Share of the norm mass in neurons whose three blocks have purity >= threshold and a common
        dominant irrep.
    min_purity : float
        Smallest block purity over significant neurons.
    irrep_names, dims : tuple
        Character-table order (trivial first).
    counts : tuple of int
        Significant neurons per irrep (by the dominant irrep of the summed power), trivial first.
    expected_irreps : tuple of int
        The irreps Thm 7.9 (or the LP support) says must be used.
    n_significant : int
    """

    group: str
    gamma_star: float
    gamma_source: str
    normalized_margin: float
    margin_ratio: float
    accuracy: float
    wrong_logit_spread: float
    single_irrep_share: float
    min_purity: float
    irrep_names: tuple[str, ...]
    dims: tuple[int, ...]
    counts: tuple[int, ...]
    expected_irreps: tuple[int, ...]
    n_significant: int

    @property
    def nontrivial_counts(self) -> tuple[int, ...]:
        """Significant neurons per nontrivial irrep (character-table order, trivial dropped)."""
        return self.counts[1:]

    @property
    def all_irreps_used(self) -> bool:
        """Every expected irrep dominates some significant neuron."""
        return all(self.counts[r] > 0 for r in self.expected_irreps)

    @property
    def trivial_unused(self) -> bool:
        """No significant neuron is dominated by the trivial irrep."""
        return self.counts[0] == 0

    @property
    def coverage_ok(self) -> bool:
        return self.all_irreps_used and self.trivial_unused

    @property
    def mean_count_by_dim(self) -> dict[int, float]:
        """Mean neuron count over the nontrivial irreps of each dimension (soft: increases with d_R)."""
        out: dict[int, list[int]] = {}
        for d, c in zip(self.dims[1:], self.counts[1:]):
            out.setdefault(d, []).append(c)
        return {d: float(np.mean(v)) for d, v in sorted(out.items())}

    @property
    def counts_increase_with_dim(self) -> bool:
        vals = list(self.mean_count_by_dim.values())
        return all(a <= b for a, b in itertools.pairwise(vals))


def gamma_star(G: fg.FiniteGroup | str) -> tuple[float, str, tuple[int, ...]]:
    """gamma*(G), where it comes from, and the irreps a max-margin network must use.

    Closed form of Thm 7.9 (``theory.groups.max_margin``, all nontrivial irreps used) when G is totally real
    and the condition holds; the character LP of App. D.9.2 (its support) when only the condition fails.

    Raises
    ------
    ValueError
        If G is not totally real (neither applies).
    """
    G = fg.group(G) if isinstance(G, str) else G
    ct = fg.check_totally_real(G)
    if tg.condition_holds(G):
        return float(tg.max_margin(G)), "closed form", tuple(range(1, ct.n_irreps))
    lp = character_lp(G)
    return lp.value, "character LP", lp.used_irreps


def compare_groups(
    net: HomogeneousNetwork,
    G: fg.FiniteGroup | str,
    *,
    purity_threshold: float = 0.98,
    rel_norm: float = 1e-3,
    gamma: tuple[float, str, tuple[int, ...]] | None = None,
) -> GroupComparison:
    """Compare a trained quadratic group network with Thm 7.9.

    Parameters
    ----------
    purity_threshold : float
        A neuron is single-irrep when each of u, v, w has max normalized isotypic power >= this and the
        three share the dominant irrep.
    rel_norm : float
        Significant neurons have norm > ``rel_norm`` x the largest neuron norm (``docs/groups.md``).
    gamma : optional
        Precomputed :func:`gamma_star` (saves the LP for repeated calls).
    """
    G = fg.group(G) if isinstance(G, str) else G
    if net.degree != 2:
        raise ValueError(f"Thm 7.9 is about quadratic networks (degree 2), got degree {net.degree}")
    gval, gsrc, expected = gamma_star(G) if gamma is None else gamma
    ct = fg.character_table(G)
    rep = evaluate(net, GroupTask(G))
    diag = neuron_irrep_diagnostics(net, G)
    norms = diag.norms
    sig = norms > rel_norm * norms.max() if norms.max() > 0 else np.zeros_like(norms, dtype=bool)
    single = (diag.purity >= purity_threshold).all(axis=1) & (diag.dominant == diag.dominant[:, :1]).all(axis=1)
    mass = norms**3
    share = float(mass[single].sum() / mass.sum()) if mass.sum() > 0 else 0.0
    counts = np.bincount(diag.neuron_dominant[sig], minlength=ct.n_irreps)
    return GroupComparison(
        group=G.name,
        gamma_star=gval,
        gamma_source=gsrc,
        **margin_fields(rep, gval),
        single_irrep_share=share,
        min_purity=float(diag.purity[sig].min()) if sig.any() else float("nan"),
        irrep_names=tuple(ct.names),
        dims=tuple(int(d) for d in ct.dims),
        counts=tuple(int(c) for c in counts),
        expected_irreps=tuple(int(r) for r in expected),
        n_significant=int(sig.sum()),
    )
