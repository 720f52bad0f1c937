"""Learned-vs-predicted metrics (verify.compare) on networks whose answer is known."""

import numpy as np
import pytest

from numerics.certificates import unit_neurons
from numerics.margins import HomogeneousNetwork
from numerics.modular import construction_network, random_network
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
