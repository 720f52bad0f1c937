"""Bad-input tests of ``numerics.groups``: a ValueError naming the parameter, never numpy's broadcast error."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import groups as ng


@pytest.mark.parametrize(
    "vectors",
    [np.ones(5), np.ones((3, 7)), np.float64(1.0), [[1.0, 2.0], [3.0]], "ab"],
    ids=["short", "wrong-last-axis", "scalar", "ragged", "string"],
)
def test_irrep_power_refuses_wrong_shape(vectors):
    with pytest.raises(ValueError, match=r"vectors must .*\|G\|"):
        ng.irrep_power(vectors, "S3")


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_irrep_power_refuses_non_finite(bad):
    v = np.ones(6)
    v[2] = bad
    with pytest.raises(ValueError, match="vectors must be finite"):
        ng.irrep_power(v, "S3")


def test_irrep_power_keeps_batch_shape():
    # the constant vector lies in the trivial isotypic component: all its power ||v||^2 = 6 is there
    p = ng.irrep_power(np.ones((2, 4, 6)), "S3")
    assert p.shape == (2, 4, 3)
    np.testing.assert_allclose(p[..., 0], 6.0, rtol=1e-12)
    np.testing.assert_allclose(p[..., 1:], 0.0, atol=1e-12)


def test_astronomical_sizes_and_scales_are_refused_not_overflowed():
    """A width of 10^400 has no float64 byte count (numerics.limits compares it as an exact integer and prints the
    size as a power of two); a scale of 10^400 no float value."""
    from theory._checks import LimitError

    with pytest.raises(LimitError, match=r"width = ~10\^400 is too large: .* needs about ~2\^\d+ TiB") as info:
        ng.construction_network("S3", width=10**400)
    assert info.value.param == "width"
    with pytest.raises(ValueError, match="scale") as info:
        ng.random_network("S3", 4, np.random.default_rng(0), scale=10**400)
    assert info.value.param == "scale"
    with pytest.raises(ValueError, match="vectors"):
        ng.irrep_power(10**400, "S3")


def test_bad_arguments_name_the_parameter():
    net = ng.optimal_neuron_network("S3", 2)
    for call, param in [
        (lambda: ng.neuron_irrep_diagnostics(-1, "S3"), "net"),
        (lambda: ng.optimal_neuron_network("S3", 2, x=np.array([np.inf, 0.0])), "x"),
        (lambda: ng.optimal_neuron_network("S3", 2, y=10**400), "y"),
        (lambda: ng.GroupTask("S3").batch(0, 37), "stop"),
        (lambda: ng.class_weights("S3", ["1e999999999", 0, 0]), "class_tau"),
    ]:
        with pytest.raises(ValueError) as info:
            call()
        assert info.value.param == param
    assert ng.neuron_irrep_diagnostics(net, "S3").neuron_dominant.tolist() == [2]


def test_class_weights_size_is_checked_before_the_character_table(monkeypatch):
    """(|G|^2, |G|) float64 weights are sized from the group's name, before the group or its characters are built."""
    from numerics import limits
    from theory import finite_groups as fg

    monkeypatch.setattr(limits, "available_memory", lambda: 2**20)
    monkeypatch.setattr(fg, "check_totally_real", lambda *a, **k: pytest.fail("character table built first"))
    with pytest.raises(ValueError, match=r"\(\|G\|\^2, \|G\|\)") as info:
        ng.class_weights("S5")
    assert info.value.param == "G"
