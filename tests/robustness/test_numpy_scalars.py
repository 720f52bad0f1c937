"""numpy scalars and vectors are numbers like Python's (a QA pass found them refused where every neighbouring
function took them: "alpha must lie in (0, 1), got np.float32(0.05)"): each call below gives the same answer with a
numpy scalar (or a numpy vector) as with the Python value."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics import stats, walsh
from numerics.local_signal_minibatch import population_gradient
from theory import boolean, groups, lsa
from theory.local_signal import normal_quantile

CASES = [
    ("holm alpha", lambda a: stats.holm_rejections([0.01, 0.04], a), 0.05, np.float32(0.05)),
    ("fisher level", lambda a: stats.fisher_drop_power(0.9, 0.1, 10, a), 0.25, np.float64(0.25)),
    (
        "minibatch nodes",
        lambda n: population_gradient(k=3, sigma=0.5, c=0.8, v=0.3, b=-0.1, h=0.02, nodes=n),
        20,
        np.int64(20),
    ),
    ("lsa d", lambda d: lsa.lemma51_moments(d), 1, np.int64(1)),
    ("boolean fraction", lambda f: boolean.random_search_tc_probability(10, 3, f)["p_early"], 0.5, np.float32(0.5)),
    ("group width", lambda w: groups.construction("S3", width=w).width, 20, np.int64(20)),
    ("group width sympy", lambda w: groups.construction("S3", width=w).width, 20, sympy.Integer(20)),
    ("fwht_exact", lambda v: walsh.fwht_exact(v), [1, 2, 3, 4], np.array([1, 2, 3, 4])),
    ("walsh exact", lambda v: walsh.walsh_coefficients_exact(v), [1, -1, 1, -1], np.array([1, -1, 1, -1])),
    ("normal_quantile", normal_quantile, 0.25, np.float64(0.25)),
]


@pytest.mark.parametrize(("name", "call", "python", "numpy"), CASES, ids=[c[0] for c in CASES])
def test_a_numpy_value_gives_the_python_values_answer(name, call, python, numpy):
    assert call(numpy) == call(python)


def test_a_bool_is_still_no_number():
    with pytest.raises(ValueError, match="alpha"):
        stats.holm_rejections([0.01], True)
    with pytest.raises(ValueError, match="width"):
        groups.construction("S3", width=True)


def test_float32_laws_and_unit_vectors_are_accepted_within_their_rounding():
    """A float32 stochastic matrix (a torch result) was refused: its rows sum to 1 within ~1e-7, not the 1e-8 a
    float64 check allows; likewise a float32 unit vector. Laws that are not laws are still refused (kl([1, 1], ...)
    was -1.1 nats)."""
    from numerics import markov
    from numerics.local_signal import cntk_gaussian_infimum

    P = np.array([[0.9, 0.1], [0.2, 0.8]])
    assert np.allclose(markov.stationary(P.astype(np.float32)), markov.stationary(P), atol=1e-6)
    w = np.array([0.6, 0.8, 0.0])
    got = cntk_gaussian_infimum(np.eye(2, 3), w.astype(np.float32), [0.5, 0.0], 8).error
    assert got == pytest.approx(cntk_gaussian_infimum(np.eye(2, 3), w, [0.5, 0.0], 8).error, rel=1e-6)
    with pytest.raises(ValueError, match="must hold laws"):
        markov.kl(np.array([1.0, 1.0]), np.array([1.0, 3.0]))
    with pytest.raises(ValueError, match="row-stochastic"):
        markov.stationary(np.array([[0.9, 0.2], [0.2, 0.8]], np.float32))
    with pytest.raises(ValueError, match=r"\|w_star\| = 1.08"):
        cntk_gaussian_infimum(np.eye(2, 3), np.array([0.6, 0.9, 0.0]), [0.5, 0.0], 8)
