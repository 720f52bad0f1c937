"""Learned weights against the predicted optimum, for any network given as neuron blocks.

The metrics read a :class:`numerics.margins.HomogeneousNetwork` (float64), so they do not care which model or
trainer produced the weights. For modular addition the predictions come from ``theory.modular``
(Shi Thm 4.9; Edelman Thm 7.7):

* margin ratio :math:`h(\\theta)/\\|\\theta\\|^{k+1}_{2,k+1}/\\gamma^*`, which can approach 1 but never exceed it;
* share of the network norm :math:`\\sum_i\\|\\theta_i\\|^{k+1}` carried by single-frequency neurons;
* phase residual :math:`\\mathrm{wrap}(\\sum_j\\theta_{u_j}-\\theta_w)` and block-norm balance of those neurons;
* frequency coverage: every :math:`\\zeta\\in\\{1..(p-1)/2\\}` is the dominant frequency of some neuron;
* the LP re-weighting of the learned neuron directions (the best margin any re-weighting of the
  learned directions reaches, an independent check that the *directions* are optimal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numerics.margins import HomogeneousNetwork, evaluate
from numerics.modular import ModularTask
from numerics.spectra import frequency_coverage, neuron_diagnostics
from theory import modular as tm

from .common import margin_fields

__all__ = ["ModularComparison", "compare_modular"]


@dataclass(frozen=True)
class ModularComparison:
    """Learned-vs-predicted metrics of one k-input modular-addition network (see module docstring)."""

    p: int
    k: int
    gamma_star: float
    normalized_margin: float
    margin_ratio: float
    accuracy: float
    wrong_logit_spread: float
    single_frequency_share: float
    max_phase_residual: float
    max_balance_deviation: float
    coverage: tuple[int, ...]
    n_significant: int
    lp_ratio: float | None = None

    @property
    def all_frequencies_used(self) -> bool:
        """True iff every frequency 1..(p-1)/2 dominates at least one significant neuron (Shi Lemma C.20)."""
        return all(c > 0 for c in self.coverage)


def compare_modular(
    net: HomogeneousNetwork,
    p: int,
    k: int,
    *,
    purity_threshold: float = 0.99,
    rel_mass: float = 1e-3,
    lp: bool = False,
) -> ModularComparison:
    """Compare a trained k-input modular-addition network with Shi Thm 4.9.

    Parameters
    ----------
    purity_threshold : float
        A neuron is single-frequency when every one of its k+1 blocks has purity >= this and all
        blocks share one non-zero dominant frequency.
    rel_mass : float
        Neurons with norm share below ``rel_mass / m`` are ignored for phases, balance and coverage.
    lp : bool
        Also solve the LP over the learned unit directions (``numerics.certificates``).
    """
    gamma = float(tm.max_margin(p, k))
    task = ModularTask(p, k)
    rep = evaluate(net, task)
    diag = neuron_diagnostics(net)
    sig = diag.significant(rel_mass)
    single = diag.single_frequency(purity_threshold)
    good = sig & single
    share = float(diag.mass[single].sum())
    cov = frequency_coverage(diag, p, rel_mass)[1:]
    lp_ratio = None
    if lp:
        from numerics.certificates import solve_dictionary_lp

        lp_ratio = solve_dictionary_lp(net.subset(np.flatnonzero(sig)).nonzero(), task).primal_value / gamma
    return ModularComparison(
        p=p,
        k=k,
        gamma_star=gamma,
        **margin_fields(rep, gamma),
        single_frequency_share=share,
        max_phase_residual=float(np.nanmax(np.abs(diag.phase_residual[good]))) if good.any() else float("nan"),
        max_balance_deviation=float(diag.balance[good].max()) if good.any() else float("nan"),
        coverage=tuple(int(c) for c in cov),
        n_significant=int(sig.sum()),
        lp_ratio=lp_ratio,
    )
