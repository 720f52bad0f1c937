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
