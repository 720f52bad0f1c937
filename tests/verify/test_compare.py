"""Learned-vs-predicted metrics (verify.compare) on networks whose answer is known."""

import numpy as np
import pytest

from numerics.certificates import unit_neurons
from numerics.margins import HomogeneousNetwork
from numerics.modular import ModularTask, construction_network, deformed_neuron, random_network
from numerics.spectra import neuron_diagnostics
from theory import modular as tm
from verify.compare import compare_modular


@pytest.mark.parametrize("p,k", [(5, 2), (7, 2), (5, 3)])
def test_construction_is_the_prediction(p, k):
    c = compare_modular(construction_network(p, k), p, k, lp=True)
    assert c.gamma_star == float(tm.max_margin(p, k))
    assert c.margin_ratio == pytest.approx(1.0, rel=1e-12)
    assert c.single_frequency_share == pytest.approx(1.0, rel=1e-12)
    assert c.all_frequencies_used and len(c.coverage) == len(tm.frequencies(p))
    assert c.max_phase_residual < 1e-10 and c.max_balance_deviation < 1e-10
    assert c.wrong_logit_spread < 1e-12
    assert c.lp_ratio == pytest.approx(1.0, rel=1e-6)


def test_random_network_is_far_from_the_prediction():
    p, k = 7, 2
    c = compare_modular(random_network(p, k, 40, np.random.default_rng(0)), p, k, lp=True)
    assert c.margin_ratio < 0.5 and c.single_frequency_share < 0.5
    assert c.lp_ratio < 1 - 1e-3


def test_dropping_a_frequency_is_detected():
    p, k = 7, 2
    net = construction_network(p, k)
    keep = np.flatnonzero(np.arange(net.width) >= 8)  # the first 8 neurons are frequency 1
    c = compare_modular(net.subset(keep), p, k)
    assert not c.all_frequencies_used and c.coverage[0] == 0
    assert c.margin_ratio < 1 - 1e-3


def test_padded_network_reduces_to_unit_neurons():
    net = construction_network(5, 2, width=20)
    u = unit_neurons(net.nonzero())
    assert u.width == tm.min_width(5, 2)
    assert np.allclose(u.neuron_norms(), 1.0)
    assert isinstance(u, HomogeneousNetwork)


# Hand-built deviations from the construction (numerics.modular.deformed_neuron: a unit-norm neuron whose phase
# mismatch, block norms and constant share are set by its arguments), p = 7, k = 2: 24 neurons, 8 per frequency.


def _with(net, *extra):
    return HomogeneousNetwork.concatenate([net, *extra])


def test_phase_residual_and_balance_are_the_worst_absolute_deviation():
    """max_phase_residual is max |residual| (a negative mismatch counts) and max_balance_deviation the largest one."""
    p, k = 7, 2
    bent = deformed_neuron(p, k, 3, mismatch=-0.25, block_fractions=np.array([0.5, 0.25, 0.25]))
    c = compare_modular(_with(construction_network(p, k), bent), p, k)
    assert c.max_phase_residual == pytest.approx(0.25, abs=1e-9)  # |sum theta_u - theta_w| = |-0.25|
    assert c.max_balance_deviation == pytest.approx(0.5, abs=1e-9)  # max_b |3 ||b||^2 - 1| = |3 * 0.5 - 1|


def test_negligible_neurons_are_left_out_of_phases_and_coverage_but_not_the_share():
    """A single-frequency neuron of norm share < rel_mass / m is ignored by phases and coverage, yet counts in the share."""
    p, k = 7, 2
    base = construction_network(p, k)
    freq = neuron_diagnostics(base).frequency
    tiny = deformed_neuron(p, k, 3, mismatch=1.0).scaled(0.01)  # mass 1e-6 of ~200: far below 1e-3 / 23
    c = compare_modular(_with(base.subset(np.flatnonzero(freq != 3)), tiny), p, k)
    assert c.coverage == (8, 8, 0) and not c.all_frequencies_used  # frequency 3 is only in the negligible neuron
    assert c.max_phase_residual < 1e-10  # its mismatch 1.0 does not count
    assert c.n_significant == 16
    assert c.single_frequency_share == pytest.approx(1.0, abs=1e-12)  # every neuron is single-frequency


def test_impure_neurons_are_significant_but_not_single_frequency():
    """A neuron with 20% of its norm in constants (purity 0.8) is significant, not single-frequency unless the threshold allows it."""
    p, k = 7, 2
    base = construction_network(p, k)
    dc = deformed_neuron(p, k, 2, dc_fraction=0.2)
    net = _with(base, dc)
    mass = net.neuron_norms() ** (k + 1)
    c = compare_modular(net, p, k)
    assert c.n_significant == base.width + 1
    assert c.single_frequency_share == pytest.approx(1 - mass[-1] / mass.sum(), rel=1e-12)
    assert compare_modular(net, p, k, purity_threshold=0.79).single_frequency_share == pytest.approx(1.0, rel=1e-12)


def test_spread_and_accuracy_are_those_of_the_logits():
    """wrong_logit_spread is max(wrong-logit range) / |h| and accuracy the share of strict argmax hits, by brute force."""
    p, k = 5, 2
    task = ModularTask(p, k)
    x, y = task.batch(0, task.n_points)
    base = _with(construction_network(p, k), deformed_neuron(p, k, 1, mismatch=0.7).scaled(2.0))
    for net in (base, HomogeneousNetwork(base.U, -base.W, base.degree)):  # h > 0, then h < 0
        logits = net.logits(x)
        correct = logits[np.arange(len(y)), y]
        wrong = np.where(np.arange(p)[None, :] == y[:, None], np.nan, logits)
        h = float(np.min(correct - np.nanmax(wrong, axis=1)))
        spread = float(np.max(np.nanmax(wrong, axis=1) - np.nanmin(wrong, axis=1)))
        c = compare_modular(net, p, k)
        assert spread > 1e-3 and (h > 0) == (net is base)  # unequal wrong logits; h of each sign
        assert c.wrong_logit_spread == pytest.approx(spread / abs(h), rel=1e-9)
        assert c.accuracy == pytest.approx(float(np.mean(correct > np.nanmax(wrong, axis=1))), abs=1e-12)
